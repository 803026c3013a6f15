-- Revision databases of a tag and a commit are read-only: reads work, writes
-- and commits are refused, active_branch() is NULL.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-Am', 'first');
CALL dolt_tag('v1');
INSERT INTO t VALUES (2, 2);
CALL dolt_commit('-am', 'second');
USE `test/v1`;
SELECT DATABASE();
SELECT active_branch();
SELECT * FROM t ORDER BY pk;
INSERT INTO t VALUES (6, 6);
UPDATE t SET v = 0;
CREATE TABLE z (pk INT PRIMARY KEY);
CALL dolt_commit('--allow-empty', '-m', 'x');
CALL dolt_branch('fromtag');
SELECT message FROM dolt_log;
USE test;
INSERT INTO `test/v1`.t VALUES (7, 7);
DELETE FROM `test/v1`.t;
SELECT * FROM `test/v1`.t ORDER BY pk;
SELECT name FROM dolt_branches ORDER BY name;
