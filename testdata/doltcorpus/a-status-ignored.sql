-- Tables matched by dolt_ignore: absent from dolt_status, left out by
-- dolt_add('.') and -A, silently not staged by name; ignored = false wins.
INSERT INTO dolt_ignore VALUES ('tmp_%', true), ('tmp_keep', false);
SELECT * FROM dolt_status ORDER BY table_name, staged;
CALL dolt_commit('-Am', 'ignore rules');
CREATE TABLE tmp_a (pk INT PRIMARY KEY);
CREATE TABLE tmp_keep (pk INT PRIMARY KEY);
CREATE TABLE t (pk INT PRIMARY KEY);
SELECT * FROM dolt_status ORDER BY table_name, staged;
CALL dolt_add('.');
SELECT * FROM dolt_status ORDER BY table_name, staged;
CALL dolt_commit('-m', 'two tables');
CALL dolt_add('tmp_a');
SELECT * FROM dolt_status ORDER BY table_name, staged;
CALL dolt_commit('-Am', 'tmp_a by name');
INSERT INTO tmp_a VALUES (1);
SELECT * FROM dolt_status ORDER BY table_name, staged;
SHOW TABLES AS OF 'HEAD';
SHOW TABLES;
