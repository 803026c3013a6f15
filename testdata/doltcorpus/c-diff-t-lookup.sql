-- dolt_diff_<table> filtered by to_commit and from_commit (hashes from
-- dolt_log, WORKING), and by diff_type.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 10);
CALL dolt_commit('-Am', 'one');
INSERT INTO t VALUES (2, 20);
CALL dolt_commit('-am', 'two');
UPDATE t SET v = 11 WHERE pk = 1;
CALL dolt_commit('-am', 'three');
DELETE FROM t WHERE pk = 2;
SET @c1 = (SELECT commit_hash FROM dolt_log WHERE message = 'one');
SET @c2 = (SELECT commit_hash FROM dolt_log WHERE message = 'two');
SET @c3 = (SELECT commit_hash FROM dolt_log WHERE message = 'three');
SELECT to_pk, to_v, from_pk, from_v, diff_type FROM dolt_diff_t WHERE to_commit = @c2;
SELECT to_pk, to_v, from_pk, from_v, diff_type FROM dolt_diff_t WHERE to_commit = @c3;
SELECT to_pk, to_v, from_pk, from_v, diff_type FROM dolt_diff_t WHERE from_commit = @c1;
SELECT to_pk, to_v, from_pk, from_v, diff_type FROM dolt_diff_t WHERE from_commit = @c3;
SELECT to_pk, from_pk, diff_type, from_commit = @c3 FROM dolt_diff_t WHERE to_commit = 'WORKING';
SELECT to_commit = @c3, from_commit = @c2 FROM dolt_diff_t WHERE diff_type = 'modified';
SELECT COUNT(*) FROM dolt_diff_t WHERE to_commit = 'nosuchcommit';
SELECT COUNT(*) FROM dolt_diff_t WHERE to_pk = 1;
SELECT COUNT(*) FROM dolt_diff_t WHERE from_pk = 2;
SELECT COUNT(*) FROM dolt_diff_t WHERE to_commit = 'STAGED';
