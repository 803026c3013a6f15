-- dolt_status for modified tables: data and schema changes, staged and
-- unstaged at once, and a change undone.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
CREATE TABLE s (pk INT PRIMARY KEY);
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-Am', 'base');
UPDATE t SET v = 2;
SELECT * FROM dolt_status ORDER BY table_name, staged;
CALL dolt_add('t');
UPDATE t SET v = 3;
SELECT * FROM dolt_status ORDER BY table_name, staged;
ALTER TABLE s ADD COLUMN c INT;
SELECT * FROM dolt_status ORDER BY table_name, staged;
UPDATE t SET v = 2;
SELECT * FROM dolt_status ORDER BY table_name, staged;
SELECT table_name FROM dolt_status WHERE staged = true;
SELECT table_name, COUNT(*) FROM dolt_status GROUP BY table_name ORDER BY table_name;
