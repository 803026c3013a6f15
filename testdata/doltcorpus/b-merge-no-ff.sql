-- dolt_merge --no-ff: a merge commit even when fast-forward is possible; its
-- default message, parents and committer.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
CALL dolt_commit('-Am', 'first');
CALL dolt_checkout('-b', 'feature');
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-am', 'f1');
CALL dolt_checkout('main');
CALL dolt_merge('--no-ff', 'feature');
SELECT message, committer, email, parents LIKE '%, %' AS two_parents FROM dolt_log;
SELECT * FROM t;
SELECT * FROM dolt_status;
SELECT * FROM dolt_merge_status;
CALL dolt_merge('--no-ff', 'feature');
SHOW WARNINGS;
