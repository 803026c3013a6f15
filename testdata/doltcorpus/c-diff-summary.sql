-- dolt_diff_summary(): one row per changed table between revisions, with
-- and without a table name; added, dropped, modified tables.
CREATE TABLE t (pk INT PRIMARY KEY, v VARCHAR(10));
CREATE TABLE u (id INT PRIMARY KEY);
CREATE TABLE d (id INT PRIMARY KEY);
INSERT INTO t VALUES (1, 'a'), (2, 'b');
INSERT INTO u VALUES (1);
CALL dolt_commit('-Am', 'first');
SELECT * FROM dolt_diff_summary('HEAD~1', 'HEAD') ORDER BY to_table_name;
SELECT * FROM dolt_diff_summary('HEAD', 'WORKING');
UPDATE t SET v = 'bb' WHERE pk = 2;
ALTER TABLE u ADD COLUMN x INT;
DROP TABLE d;
CREATE TABLE k (a INT);
CREATE TABLE e (id INT PRIMARY KEY);
INSERT INTO k VALUES (1);
SELECT * FROM dolt_diff_summary('HEAD', 'WORKING') ORDER BY from_table_name, to_table_name;
SELECT * FROM dolt_diff_summary('HEAD', 'WORKING', 't');
SELECT * FROM dolt_diff_summary('HEAD', 'WORKING', 'd');
SELECT * FROM dolt_diff_summary('HEAD', 'WORKING', 'k');
SELECT * FROM dolt_diff_summary('WORKING', 'HEAD') ORDER BY from_table_name, to_table_name;
SELECT * FROM dolt_diff_summary('HEAD..WORKING', 'u');
SELECT * FROM dolt_diff_summary('HEAD', 'WORKING', 'nope');
CALL dolt_add('t');
SELECT * FROM dolt_diff_summary('HEAD', 'STAGED');
