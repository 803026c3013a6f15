-- dolt_clean('--dry-run') drops nothing; dolt_clean with table names drops
-- only those, and ignores named tables that are tracked or staged.
CREATE TABLE t (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'base');
CREATE TABLE n1 (pk INT PRIMARY KEY);
CREATE TABLE n2 (pk INT PRIMARY KEY);
CREATE TABLE n3 (pk INT PRIMARY KEY);
CALL dolt_add('n3');
CALL dolt_clean('--dry-run');
SHOW TABLES;
CALL dolt_clean('--dry-run', 'n1');
SHOW TABLES;
CALL dolt_clean('n1');
SHOW TABLES;
CALL dolt_clean('t', 'n3');
SHOW TABLES;
SELECT * FROM dolt_status ORDER BY table_name, staged;
