-- dolt_diff (the system table): one row per table changed in each commit,
-- plus WORKING and STAGED rows for uncommitted changes.
DESCRIBE dolt_diff;
SELECT * FROM dolt_diff;
CREATE TABLE t (pk INT PRIMARY KEY, v VARCHAR(10));
INSERT INTO t VALUES (1, 'a'), (2, 'b');
CALL dolt_commit('-Am', 'first');
SELECT * FROM dolt_diff;
UPDATE t SET v = 'bb' WHERE pk = 2;
SELECT commit_hash, table_name, committer, email, date, message, data_change, schema_change, author, author_email, author_date FROM dolt_diff ORDER BY COALESCE(message, commit_hash), table_name;
CALL dolt_add('t');
SELECT commit_hash, table_name, data_change, schema_change FROM dolt_diff ORDER BY COALESCE(message, commit_hash), table_name;
INSERT INTO t VALUES (3, 'c');
SELECT commit_hash, table_name, data_change, schema_change FROM dolt_diff ORDER BY COALESCE(message, commit_hash), table_name;
CALL dolt_commit('-am', 'second');
SELECT commit_hash, table_name, message, data_change, schema_change FROM dolt_diff ORDER BY COALESCE(message, commit_hash), table_name;
SELECT COUNT(*) FROM dolt_diff WHERE commit_hash IN ('WORKING', 'STAGED');
