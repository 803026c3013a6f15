-- dolt_reset with table names: only those tables unstaged; with HEAD before
-- or after the names; the working set kept.
CREATE TABLE t (pk INT PRIMARY KEY);
CREATE TABLE u (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'base');
INSERT INTO t VALUES (1);
INSERT INTO u VALUES (1);
CREATE TABLE n (pk INT PRIMARY KEY);
CALL dolt_add('.');
CALL dolt_reset('n');
SELECT * FROM dolt_status ORDER BY table_name, staged;
CALL dolt_reset('t', 'u');
SELECT * FROM dolt_status ORDER BY table_name, staged;
CALL dolt_add('.');
CALL dolt_reset('HEAD', 't');
SELECT * FROM dolt_status ORDER BY table_name, staged;
CALL dolt_add('.');
CALL dolt_reset('u', 'HEAD');
SELECT * FROM dolt_status ORDER BY table_name, staged;
SELECT * FROM t;
