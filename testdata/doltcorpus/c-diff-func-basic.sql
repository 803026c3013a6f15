-- The dolt_diff() table function between two commits: columns, added,
-- modified and removed rows, the same revision twice, a branch name.
CREATE TABLE t (pk INT PRIMARY KEY, v VARCHAR(10));
INSERT INTO t VALUES (1, 'a'), (2, 'b');
CALL dolt_commit('-Am', 'first');
UPDATE t SET v = 'bb' WHERE pk = 2;
INSERT INTO t VALUES (3, 'c');
DELETE FROM t WHERE pk = 1;
CALL dolt_commit('-am', 'second');
SELECT * FROM dolt_diff('HEAD~1', 'HEAD', 't') ORDER BY COALESCE(to_pk, from_pk);
SELECT * FROM dolt_diff('HEAD', 'HEAD~1', 't') ORDER BY COALESCE(to_pk, from_pk);
SELECT * FROM dolt_diff('HEAD~2', 'HEAD', 't') ORDER BY COALESCE(to_pk, from_pk);
SELECT * FROM dolt_diff('HEAD', 'HEAD', 't');
SELECT * FROM dolt_diff('main', 'HEAD', 't');
SET @c1 = (SELECT commit_hash FROM dolt_log WHERE message = 'first');
SELECT to_pk, from_pk, diff_type, from_commit = @c1 FROM dolt_diff(@c1, 'main', 't') ORDER BY COALESCE(to_pk, from_pk);
SELECT COUNT(*) FROM dolt_diff('HEAD~1', 'HEAD', 't') WHERE diff_type = 'added';
SELECT d.to_pk, t.v FROM dolt_diff('HEAD~1', 'HEAD', 't') d JOIN t ON t.pk = d.to_pk ORDER BY d.to_pk;
