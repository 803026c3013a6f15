-- dolt_commit -a stages modified and deleted tables but not new ones; -A
-- stages new tables too; the long forms --all and --ALL.
CREATE TABLE t (pk INT PRIMARY KEY);
CREATE TABLE u (pk INT PRIMARY KEY);
CALL dolt_commit('-a', '-m', 'a ignores new tables');
SELECT * FROM dolt_status ORDER BY table_name, staged;
CALL dolt_commit('-A', '-m', 'A takes new tables');
SELECT * FROM dolt_status ORDER BY table_name, staged;
INSERT INTO t VALUES (1);
DROP TABLE u;
CREATE TABLE w (pk INT PRIMARY KEY);
CALL dolt_commit('-a', '-m', 'a takes modified and deleted');
SELECT * FROM dolt_status ORDER BY table_name, staged;
SHOW TABLES;
INSERT INTO t VALUES (2);
CALL dolt_commit('--all', '-m', 'long all');
CALL dolt_commit('--ALL', '-m', 'long ALL');
SELECT * FROM dolt_status ORDER BY table_name, staged;
SELECT message FROM dolt_log;
