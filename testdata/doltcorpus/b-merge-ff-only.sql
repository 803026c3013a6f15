-- dolt_merge --ff-only on diverged branches, and flags that cannot go
-- together (--ff-only with --no-ff, --squash with --no-ff).
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
CALL dolt_commit('-Am', 'first');
CALL dolt_checkout('-b', 'feature');
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-am', 'f1');
CALL dolt_checkout('main');
INSERT INTO t VALUES (2, 2);
CALL dolt_commit('-am', 'm1');
CALL dolt_merge('--ff-only', 'feature');
SELECT message FROM dolt_log;
SELECT * FROM t ORDER BY pk;
CALL dolt_merge('--no-ff', '--ff-only', 'feature');
CALL dolt_merge('--squash', '--no-ff', 'feature');
CALL dolt_merge('--ff-only', 'main');
CALL dolt_checkout('feature');
CALL dolt_merge('--ff-only', 'HEAD~1');
SELECT * FROM dolt_merge_status;
