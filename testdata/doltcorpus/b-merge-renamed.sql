-- A merge of a branch that renamed a table with one that changed its rows.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1), (2, 2);
CALL dolt_commit('-Am', 'base');
CALL dolt_branch('other');
RENAME TABLE t TO t2;
CALL dolt_commit('-Am', 'rename');
CALL dolt_checkout('other');
UPDATE t SET v = 10 WHERE pk = 1;
CALL dolt_commit('-am', 'update');
CALL dolt_checkout('main');
SET @@dolt_allow_commit_conflicts = 1;
CALL dolt_merge('other');
SHOW TABLES;
SELECT * FROM dolt_status;
SELECT * FROM dolt_conflicts;
SELECT * FROM dolt_schema_conflicts;
SELECT * FROM t2;
