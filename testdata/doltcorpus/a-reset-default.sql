-- dolt_reset() without arguments: everything unstaged, the working set kept;
-- its result column status; on a clean database.
CALL dolt_reset();
CREATE TABLE t (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'base');
INSERT INTO t VALUES (1);
CALL dolt_add('t');
INSERT INTO t VALUES (2);
CREATE TABLE n (pk INT PRIMARY KEY);
CALL dolt_add('n');
SELECT * FROM dolt_status ORDER BY table_name, staged;
CALL dolt_reset();
SELECT * FROM dolt_status ORDER BY table_name, staged;
SELECT * FROM t ORDER BY pk;
SHOW TABLES;
SELECT message FROM dolt_log;
