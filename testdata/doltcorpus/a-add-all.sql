-- dolt_add('.'), dolt_add('-A') and dolt_add('--all'): every change staged,
-- new, modified and deleted tables alike; '.' with nothing to add.
CALL dolt_add('.');
CREATE TABLE t (pk INT PRIMARY KEY);
CREATE TABLE u (pk INT PRIMARY KEY);
CALL dolt_add('.');
SELECT * FROM dolt_status ORDER BY table_name, staged;
CALL dolt_commit('-m', 'base');
INSERT INTO t VALUES (1);
DROP TABLE u;
CREATE TABLE w (pk INT PRIMARY KEY);
CALL dolt_add('-A');
SELECT * FROM dolt_status ORDER BY table_name, staged;
CALL dolt_commit('-m', 'second');
INSERT INTO t VALUES (2);
CALL dolt_add('--all');
SELECT * FROM dolt_status ORDER BY table_name, staged;
INSERT INTO w VALUES (1);
CALL dolt_add('-A', 't');
SELECT * FROM dolt_status ORDER BY table_name, staged;
