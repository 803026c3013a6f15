-- dolt_schemas after CREATE VIEW, CREATE TRIGGER and CREATE EVENT: what it
-- holds, dolt_status and commits, drops and reset.
DESCRIBE dolt_schemas;
SELECT * FROM dolt_schemas;
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
CALL dolt_commit('-Am', 'table');
CREATE VIEW v1 AS SELECT pk FROM t;
SELECT * FROM dolt_schemas;
SELECT * FROM dolt_status;
CREATE TRIGGER tr1 BEFORE INSERT ON t FOR EACH ROW SET NEW.v = NEW.v * 2;
CREATE EVENT e1 ON SCHEDULE EVERY 1 DAY STARTS '2030-01-01 00:00:00' DO INSERT INTO t VALUES (99, 99);
SELECT type, name, fragment, JSON_KEYS(extra), sql_mode FROM dolt_schemas ORDER BY type, name;
CALL dolt_commit('-Am', 'schemas');
SELECT table_name, data_change, schema_change FROM dolt_diff WHERE message = 'schemas';
SHOW TABLES;
DROP VIEW v1;
SELECT type, name FROM dolt_schemas ORDER BY type, name;
SELECT * FROM dolt_status;
DROP TRIGGER tr1;
DROP EVENT e1;
SELECT * FROM dolt_schemas;
SELECT * FROM dolt_status;
CALL dolt_reset('--hard');
SELECT type, name FROM dolt_schemas ORDER BY type, name;
INSERT INTO t VALUES (1, 5);
SELECT * FROM v1;
INSERT INTO dolt_schemas VALUES ('view', 'vx', 'SELECT 1', NULL, NULL);
DELETE FROM dolt_schemas;
SELECT type, name FROM dolt_schemas AS OF 'HEAD~1';
