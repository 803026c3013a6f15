-- dolt_diff's data_change and schema_change flags for CREATE, ALTER, DROP
-- and RENAME of tables, and filtering by table_name and commit_hash.
CREATE TABLE t (pk INT PRIMARY KEY, v VARCHAR(10));
CREATE TABLE u (id INT PRIMARY KEY);
CALL dolt_commit('-Am', 'create');
ALTER TABLE t ADD COLUMN w INT;
CALL dolt_commit('-am', 'alter');
INSERT INTO u VALUES (1);
CALL dolt_commit('-am', 'data');
DROP TABLE u;
CALL dolt_commit('-am', 'drop u');
INSERT INTO t VALUES (1, 'a', 1);
CREATE TABLE w (a INT PRIMARY KEY);
SELECT table_name, message, data_change, schema_change FROM dolt_diff ORDER BY COALESCE(message, commit_hash), table_name;
SELECT message, data_change, schema_change FROM dolt_diff WHERE table_name = 'u' ORDER BY message;
SELECT table_name FROM dolt_diff WHERE commit_hash = 'WORKING' ORDER BY table_name;
SELECT COUNT(*) FROM dolt_diff WHERE commit_hash = 'STAGED';
SELECT COUNT(*) FROM dolt_diff WHERE commit_hash = (SELECT commit_hash FROM dolt_log WHERE message = 'alter');
SELECT table_name FROM dolt_diff WHERE data_change = 1 ORDER BY table_name, message;
CALL dolt_add('.');
SELECT table_name, commit_hash, data_change, schema_change FROM dolt_diff WHERE commit_hash IN ('WORKING', 'STAGED') ORDER BY table_name, commit_hash;
