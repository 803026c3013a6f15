-- dolt_commit_diff_<table>: the diff between two chosen commits, given
-- WHERE to_commit = ... AND from_commit = ... (hashes, refs, WORKING, STAGED).
CREATE TABLE t (pk INT PRIMARY KEY, v VARCHAR(10), w INT);
INSERT INTO t VALUES (1, 'a', 1), (2, 'b', 2);
CALL dolt_commit('-Am', 'first');
UPDATE t SET v = 'bb' WHERE pk = 2;
CALL dolt_commit('-am', 'second');
ALTER TABLE t ADD COLUMN x INT;
INSERT INTO t VALUES (3, 'c', 3, 3);
CALL dolt_commit('-am', 'third');
UPDATE t SET w = 9 WHERE pk = 1;
DESCRIBE dolt_commit_diff_t;
SET @c1 = (SELECT commit_hash FROM dolt_log WHERE message = 'first');
SET @c2 = (SELECT commit_hash FROM dolt_log WHERE message = 'second');
SET @c3 = (SELECT commit_hash FROM dolt_log WHERE message = 'third');
SELECT * FROM dolt_commit_diff_t WHERE to_commit = @c2 AND from_commit = @c1;
SELECT to_pk, to_v, from_pk, from_v, diff_type FROM dolt_commit_diff_t WHERE to_commit = @c1 AND from_commit = @c2;
SELECT to_pk, to_x, from_pk, from_x, diff_type FROM dolt_commit_diff_t WHERE to_commit = @c3 AND from_commit = @c1 ORDER BY COALESCE(to_pk, from_pk);
SELECT * FROM dolt_commit_diff_t WHERE to_commit = 'WORKING' AND from_commit = @c3;
SELECT to_pk, from_pk, to_commit, from_commit, diff_type FROM dolt_commit_diff_t WHERE to_commit = 'HEAD' AND from_commit = 'HEAD~2' ORDER BY COALESCE(to_pk, from_pk);
SELECT to_pk, to_w, from_w, to_commit, from_commit FROM dolt_commit_diff_t WHERE to_commit = 'WORKING' AND from_commit = 'STAGED';
SELECT COUNT(*) FROM dolt_commit_diff_t WHERE to_commit = @c2 AND from_commit = @c2;
SELECT to_pk, diff_type FROM dolt_commit_diff_t WHERE from_commit = @c1 AND to_commit = 'main';
