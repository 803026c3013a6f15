-- With @@dolt_show_system_tables on and a stored procedure defined,
-- SHOW TABLES lists dolt_procedures' tables; Dolt 2.3.1 then fails
-- information_schema.tables (a Dolt bug, kept as recorded).
CREATE TABLE t (pk INT PRIMARY KEY);
CREATE PROCEDURE p() SELECT 1;
SELECT table_name FROM information_schema.tables WHERE table_schema = 'test' ORDER BY table_name;
SET @@dolt_show_system_tables = 1;
SHOW TABLES;
SELECT table_name FROM information_schema.tables WHERE table_schema = 'test' ORDER BY table_name;
SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = 'test' AND table_name = 'dolt_procedures';
SET @@dolt_show_system_tables = 0;
SELECT table_name FROM information_schema.tables WHERE table_schema = 'test' ORDER BY table_name;
