-- dolt_reset('--hard'): staged and unstaged changes to tracked tables
-- dropped, untracked new tables left; with HEAD~1 and a branch name.
CREATE TABLE t (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'one');
INSERT INTO t VALUES (1);
CALL dolt_commit('-am', 'two');
INSERT INTO t VALUES (2);
CALL dolt_add('t');
INSERT INTO t VALUES (3);
CREATE TABLE n (pk INT PRIMARY KEY);
CREATE TABLE m (pk INT PRIMARY KEY);
CALL dolt_add('m');
CALL dolt_reset('--hard');
SELECT * FROM dolt_status ORDER BY table_name, staged;
SELECT * FROM t ORDER BY pk;
SHOW TABLES;
CALL dolt_reset('--hard', 'HEAD~1');
SELECT message FROM dolt_log;
SELECT * FROM t;
SELECT * FROM dolt_status ORDER BY table_name, staged;
CALL dolt_reset('--hard', 'main');
SELECT message FROM dolt_log LIMIT 1;
