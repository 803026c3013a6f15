-- dolt_conflicts_resolve --theirs with dolt_allow_commit_conflicts: their
-- rows replace ours; '.' for all tables.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1), (2, 2);
CALL dolt_commit('-Am', 'first');
CALL dolt_checkout('-b', 'feature');
UPDATE t SET v = 10 WHERE pk = 1;
INSERT INTO t VALUES (3, 30);
CALL dolt_commit('-am', 'f1');
CALL dolt_checkout('main');
UPDATE t SET v = 100 WHERE pk = 1;
INSERT INTO t VALUES (3, 300);
CALL dolt_commit('-am', 'm1');
SET @@dolt_allow_commit_conflicts = 1;
CALL dolt_merge('feature');
CALL dolt_conflicts_resolve('--theirs', '.');
SELECT * FROM dolt_conflicts;
SELECT * FROM dolt_status;
SELECT * FROM dolt_merge_status;
SELECT * FROM t ORDER BY pk;
CALL dolt_commit('-m', 'merged theirs');
SELECT message, parents LIKE '%, %' AS two_parents FROM dolt_log;
SELECT * FROM t AS OF 'HEAD~1' ORDER BY pk;
