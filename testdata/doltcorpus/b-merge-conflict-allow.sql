-- A conflicting dolt_merge with @@dolt_allow_commit_conflicts = 1: the result
-- row and warning, the conflicts and merge state persist; a second merge.
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
SELECT @@dolt_allow_commit_conflicts;
SET @@dolt_allow_commit_conflicts = 1;
CALL dolt_merge('feature');
SHOW WARNINGS;
SELECT * FROM dolt_merge_status;
SELECT * FROM dolt_conflicts;
SELECT * FROM dolt_status;
SELECT * FROM t ORDER BY pk;
CALL dolt_merge('feature');
CALL dolt_commit('-am', 'try');
SELECT message FROM dolt_log;
