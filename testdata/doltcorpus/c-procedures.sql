-- dolt_procedures after CREATE PROCEDURE and DROP PROCEDURE: its columns,
-- whether it is in dolt_status, committed, and reset.
DESCRIBE dolt_procedures;
SELECT * FROM dolt_procedures;
SELECT * FROM dolt_status;
CREATE PROCEDURE p1(x INT) SELECT x + 1;
SELECT * FROM dolt_procedures;
SELECT * FROM dolt_status;
CREATE PROCEDURE p2() SELECT 2;
SELECT name, create_stmt, sql_mode, created_at = modified_at FROM dolt_procedures ORDER BY name;
CALL dolt_commit('-Am', 'procs');
SELECT table_name, data_change, schema_change FROM dolt_diff;
SELECT * FROM dolt_status;
DROP PROCEDURE p1;
SELECT name FROM dolt_procedures;
SELECT * FROM dolt_status;
SELECT to_name, from_name, diff_type FROM dolt_diff_dolt_procedures WHERE to_commit = 'WORKING';
CALL dolt_reset('--hard');
SELECT name FROM dolt_procedures ORDER BY name;
CALL p1(41);
INSERT INTO dolt_procedures (name, create_stmt) VALUES ('p3', 'CREATE PROCEDURE p3() SELECT 3');
SELECT name FROM dolt_procedures ORDER BY name;
CALL p3();
SHOW PROCEDURE STATUS WHERE Db = 'test';
