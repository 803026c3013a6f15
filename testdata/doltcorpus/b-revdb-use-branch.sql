-- USE `test/branch`: a branch's revision database is writable and commits to
-- that branch; DATABASE(), active_branch(), dolt_log in it.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-Am', 'first');
CALL dolt_branch('feature');
INSERT INTO t VALUES (2, 2);
CALL dolt_commit('-am', 'second');
USE `test/feature`;
SELECT DATABASE();
SELECT active_branch();
SELECT * FROM t ORDER BY pk;
INSERT INTO t VALUES (5, 5);
SELECT * FROM dolt_status;
CALL dolt_commit('-am', 'on feature');
SELECT message FROM dolt_log;
USE test;
SELECT DATABASE();
SELECT active_branch();
SELECT * FROM t ORDER BY pk;
SELECT name, latest_commit_message FROM dolt_branches ORDER BY name;
