-- dolt_diff() with WORKING and STAGED as either revision.
CREATE TABLE t (pk INT PRIMARY KEY, v VARCHAR(10));
INSERT INTO t VALUES (1, 'a'), (2, 'b');
CALL dolt_commit('-Am', 'first');
INSERT INTO t VALUES (3, 'c');
CALL dolt_add('t');
DELETE FROM t WHERE pk = 1;
UPDATE t SET v = 'bb' WHERE pk = 2;
SELECT to_pk, to_v, to_commit, from_pk, from_v, from_commit, diff_type FROM dolt_diff('HEAD', 'WORKING', 't') ORDER BY COALESCE(to_pk, from_pk);
SELECT to_pk, to_v, to_commit, from_pk, from_v, from_commit, diff_type FROM dolt_diff('HEAD', 'STAGED', 't') ORDER BY COALESCE(to_pk, from_pk);
SELECT to_pk, to_v, to_commit, from_pk, from_v, from_commit, diff_type FROM dolt_diff('STAGED', 'WORKING', 't') ORDER BY COALESCE(to_pk, from_pk);
SELECT to_pk, to_v, to_commit, from_pk, from_v, from_commit, diff_type FROM dolt_diff('WORKING', 'HEAD', 't') ORDER BY COALESCE(to_pk, from_pk);
SELECT to_pk, to_commit, from_pk, from_commit, diff_type FROM dolt_diff('working', 'staged', 't') ORDER BY COALESCE(to_pk, from_pk);
SELECT COUNT(*) FROM dolt_diff('WORKING', 'WORKING', 't');
SELECT to_commit_date IS NULL, from_commit_date IS NULL FROM dolt_diff('HEAD', 'WORKING', 't') WHERE diff_type = 'added';
