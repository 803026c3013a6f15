-- A conflicting dolt_merge with autocommit on: Dolt rolls the transaction
-- back with an error and leaves no merge state behind.
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
CALL dolt_merge('feature');
SELECT * FROM dolt_merge_status;
SELECT * FROM dolt_conflicts;
SELECT * FROM dolt_status;
SELECT * FROM t ORDER BY pk;
SELECT message FROM dolt_log;
CALL dolt_merge('feature');
