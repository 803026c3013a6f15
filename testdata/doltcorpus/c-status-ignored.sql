-- dolt_status_ignored: dolt_status with an ignored column, listing the
-- tables dolt_ignore hides; DESCRIBE and states before and after dolt_add.
DESCRIBE dolt_status_ignored;
SELECT * FROM dolt_status_ignored;
INSERT INTO dolt_ignore VALUES ('tmp*', 1);
CREATE TABLE tmp1 (id INT PRIMARY KEY);
CREATE TABLE t (id INT PRIMARY KEY);
SELECT * FROM dolt_status_ignored ORDER BY table_name;
CALL dolt_add('.');
SELECT * FROM dolt_status_ignored ORDER BY table_name;
CALL dolt_commit('-m', 'first');
SELECT * FROM dolt_status_ignored ORDER BY table_name;
INSERT INTO tmp1 VALUES (1);
INSERT INTO t VALUES (1);
SELECT * FROM dolt_status_ignored ORDER BY table_name;
CALL dolt_add('-f', 'tmp1');
SELECT * FROM dolt_status_ignored ORDER BY table_name, staged;
CALL dolt_commit('-am', 'second');
DROP TABLE tmp1;
SELECT * FROM dolt_status_ignored ORDER BY table_name;
SELECT * FROM dolt_status ORDER BY table_name;
