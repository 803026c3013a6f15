-- dolt_status for dropped tables, staged and not, and for a table dropped
-- and made again, the same or with another schema.
CREATE TABLE t (pk INT PRIMARY KEY);
CREATE TABLE u (pk INT PRIMARY KEY);
CREATE TABLE w (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'base');
DROP TABLE t;
SELECT * FROM dolt_status ORDER BY table_name, staged;
CALL dolt_add('t');
SELECT * FROM dolt_status ORDER BY table_name, staged;
DROP TABLE u;
CREATE TABLE u (pk INT PRIMARY KEY);
SELECT * FROM dolt_status ORDER BY table_name, staged;
DROP TABLE w;
CREATE TABLE w (pk INT PRIMARY KEY, v INT);
SELECT * FROM dolt_status ORDER BY table_name, staged;
CALL dolt_commit('-am', 'dropped t');
SELECT * FROM dolt_status ORDER BY table_name, staged;
SHOW TABLES;
