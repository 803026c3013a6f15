-- dolt_schema_diff(): CREATE statements of tables whose schema changed
-- between two revisions; added, dropped, renamed tables; errors.
CREATE TABLE t (pk INT PRIMARY KEY, v VARCHAR(10));
CREATE TABLE d (id INT PRIMARY KEY);
CALL dolt_commit('-Am', 'first');
SELECT * FROM dolt_schema_diff('HEAD~1', 'HEAD') ORDER BY to_table_name;
SELECT * FROM dolt_schema_diff('HEAD', 'WORKING');
INSERT INTO t VALUES (1, 'a');
SELECT * FROM dolt_schema_diff('HEAD', 'WORKING');
ALTER TABLE t ADD COLUMN w INT;
DROP TABLE d;
CREATE TABLE n (id INT PRIMARY KEY);
SELECT * FROM dolt_schema_diff('HEAD', 'WORKING') ORDER BY from_table_name, to_table_name;
SELECT * FROM dolt_schema_diff('HEAD', 'WORKING', 't');
SELECT * FROM dolt_schema_diff('HEAD', 'WORKING', 'd');
SELECT * FROM dolt_schema_diff('HEAD..WORKING', 'n');
SELECT * FROM dolt_schema_diff('HEAD', 'WORKING', 'nope');
CALL dolt_commit('-Am', 'second');
RENAME TABLE n TO n2;
SELECT * FROM dolt_schema_diff('HEAD', 'WORKING');
SELECT * FROM dolt_schema_diff();
SELECT * FROM dolt_schema_diff('HEAD');
SELECT * FROM dolt_schema_diff('HEAD', 'WORKING', 't', 'x');
SELECT * FROM dolt_schema_diff(NULL, 'WORKING');
SELECT * FROM dolt_schema_diff('nope', 'WORKING');
SELECT * FROM dolt_schema_diff('HEAD...WORKING');
