-- dolt_column_diff: which columns changed in each commit and in the
-- working set; added, modified and dropped columns.
DESCRIBE dolt_column_diff;
SELECT * FROM dolt_column_diff;
CREATE TABLE t (pk INT PRIMARY KEY, v VARCHAR(10), w INT);
INSERT INTO t VALUES (1, 'a', 1), (2, 'b', 2);
CALL dolt_commit('-Am', 'first');
UPDATE t SET v = 'bb' WHERE pk = 2;
CALL dolt_commit('-am', 'second');
ALTER TABLE t ADD COLUMN x INT;
CALL dolt_commit('-am', 'third');
UPDATE t SET w = 9;
SELECT * FROM dolt_column_diff ORDER BY COALESCE(message, commit_hash), table_name, column_name;
ALTER TABLE t DROP COLUMN v;
CREATE TABLE u (id INT PRIMARY KEY);
SELECT commit_hash, table_name, column_name, diff_type FROM dolt_column_diff WHERE commit_hash = 'WORKING' ORDER BY table_name, column_name;
CALL dolt_add('u');
SELECT commit_hash, table_name, column_name, diff_type FROM dolt_column_diff WHERE commit_hash IN ('WORKING', 'STAGED') ORDER BY commit_hash, table_name, column_name;
CALL dolt_commit('-am', 'fourth');
SELECT table_name, column_name, diff_type FROM dolt_column_diff WHERE message = 'fourth' ORDER BY table_name, column_name;
SELECT column_name, COUNT(*) FROM dolt_column_diff WHERE table_name = 't' GROUP BY column_name ORDER BY column_name;
DROP TABLE u;
SELECT table_name, column_name, diff_type FROM dolt_column_diff WHERE commit_hash = 'WORKING' ORDER BY table_name, column_name;
