-- dolt_status for RENAME TABLE: one row 'old -> new', status renamed,
-- staged by adding the new name; a rename with data changes; renamed twice.
CREATE TABLE a (pk INT PRIMARY KEY);
CREATE TABLE b (pk INT PRIMARY KEY, v INT);
CALL dolt_commit('-Am', 'base');
RENAME TABLE a TO a2;
SELECT * FROM dolt_status ORDER BY table_name, staged;
CALL dolt_add('a');
SELECT * FROM dolt_status ORDER BY table_name, staged;
CALL dolt_add('a2');
SELECT * FROM dolt_status ORDER BY table_name, staged;
ALTER TABLE b RENAME TO b2;
INSERT INTO b2 VALUES (1, 1);
SELECT * FROM dolt_status ORDER BY table_name, staged;
CALL dolt_add('.');
RENAME TABLE b2 TO b3;
SELECT * FROM dolt_status ORDER BY table_name, staged;
CALL dolt_commit('-m', 'renames');
SELECT * FROM dolt_status ORDER BY table_name, staged;
SELECT table_name FROM dolt_status WHERE status = 'renamed';
