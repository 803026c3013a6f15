-- dolt_merge of diverged branches without conflicts: the merge commit, its
-- default message, rows and schema changes from both sides.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1), (2, 2);
CALL dolt_commit('-Am', 'first');
CALL dolt_checkout('-b', 'feature');
INSERT INTO t VALUES (3, 3);
UPDATE t SET v = 20 WHERE pk = 2;
CREATE TABLE f (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'f1');
CALL dolt_checkout('main');
INSERT INTO t VALUES (4, 4);
UPDATE t SET v = 10 WHERE pk = 1;
ALTER TABLE t ADD COLUMN w INT DEFAULT 7;
CALL dolt_commit('-am', 'm1');
CALL dolt_merge('feature');
SELECT message, parents LIKE '%, %' AS two_parents FROM dolt_log;
SELECT * FROM t ORDER BY pk;
SHOW TABLES;
SELECT * FROM dolt_status;
SELECT * FROM dolt_conflicts;
