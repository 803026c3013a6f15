-- dolt_add with table names: one, several, a table already staged, a
-- committed table with no change; its result column status.
CREATE TABLE t (pk INT PRIMARY KEY);
CREATE TABLE u (pk INT PRIMARY KEY);
CREATE TABLE v (pk INT PRIMARY KEY);
CALL dolt_add('t');
SELECT * FROM dolt_status ORDER BY table_name, staged;
CALL dolt_add('u', 'v');
SELECT * FROM dolt_status ORDER BY table_name, staged;
CALL dolt_add('t');
CALL dolt_commit('-m', 'three tables');
CALL dolt_add('t');
SELECT * FROM dolt_status ORDER BY table_name, staged;
INSERT INTO u VALUES (1);
INSERT INTO v VALUES (1);
CALL dolt_add('v');
SELECT * FROM dolt_status ORDER BY table_name, staged;
