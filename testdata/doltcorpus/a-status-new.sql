-- dolt_status's columns, and a new table as it goes from unstaged to staged
-- to committed.
DESCRIBE dolt_status;
SHOW CREATE TABLE dolt_status;
SELECT * FROM dolt_status ORDER BY table_name, staged;
CREATE TABLE t (pk INT PRIMARY KEY);
SELECT * FROM dolt_status ORDER BY table_name, staged;
CALL dolt_add('t');
SELECT * FROM dolt_status ORDER BY table_name, staged;
INSERT INTO t VALUES (1);
SELECT * FROM dolt_status ORDER BY table_name, staged;
CALL dolt_commit('-am', 'add t');
SELECT * FROM dolt_status ORDER BY table_name, staged;
SELECT COUNT(*) FROM dolt_status;
