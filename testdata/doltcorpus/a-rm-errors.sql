-- dolt_rm's refusals: no table, unknown tables, tables with unstaged or
-- staged changes, new tables, bad options, NULL.
CREATE TABLE t (pk INT PRIMARY KEY);
CREATE TABLE s (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'base');
CALL dolt_rm();
CALL dolt_rm('nosuch');
CALL dolt_rm('t', 'nosuch');
INSERT INTO s VALUES (1);
CALL dolt_rm('s');
CALL dolt_add('s');
CALL dolt_rm('s');
CREATE TABLE n (pk INT PRIMARY KEY);
CALL dolt_rm('n');
CALL dolt_add('n');
CALL dolt_rm('n');
CALL dolt_rm('--bogus', 't');
CALL dolt_rm(NULL);
SHOW TABLES;
SELECT * FROM dolt_status ORDER BY table_name, staged;
