-- dolt_status when a table is dropped and another made with the same schema:
-- a deletion and a new table, not a rename.
CREATE TABLE a (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'base');
DROP TABLE a;
CREATE TABLE a2 (pk INT PRIMARY KEY);
SELECT * FROM dolt_status ORDER BY table_name, staged;
CALL dolt_add('.');
SELECT * FROM dolt_status ORDER BY table_name, staged;
CALL dolt_reset();
DROP TABLE a2;
SELECT * FROM dolt_status ORDER BY table_name, staged;
