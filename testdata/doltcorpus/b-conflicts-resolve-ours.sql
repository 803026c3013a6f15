-- dolt_conflicts_resolve --ours in a transaction: our rows stay, conflicts
-- go, the merge commits with two parents.
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
SET autocommit = 0;
CALL dolt_merge('feature');
CALL dolt_conflicts_resolve('--ours', 't');
SELECT * FROM dolt_conflicts;
SELECT * FROM dolt_status;
SELECT * FROM t ORDER BY pk;
CALL dolt_commit('-m', 'merged ours');
COMMIT;
SELECT message, parents LIKE '%, %' AS two_parents FROM dolt_log;
SELECT * FROM dolt_merge_status;
