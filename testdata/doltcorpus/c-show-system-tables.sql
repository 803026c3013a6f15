-- Which system tables SHOW TABLES lists with @@dolt_show_system_tables on,
-- and SHOW FULL TABLES and information_schema.tables with it off and on.
CREATE TABLE t (pk INT PRIMARY KEY);
CREATE VIEW v AS SELECT pk FROM t;
SHOW VARIABLES LIKE 'dolt_show_system_tables';
SHOW TABLES;
SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = 'test' ORDER BY table_name;
SET @@dolt_show_system_tables = 1;
SHOW TABLES;
SHOW FULL TABLES;
SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = 'test' ORDER BY table_name;
SET @@dolt_show_system_tables = 0;
SHOW FULL TABLES;
SET @@dolt_show_system_tables = 'bogus';
SELECT @@dolt_show_system_tables;
