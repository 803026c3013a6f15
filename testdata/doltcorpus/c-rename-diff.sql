-- RENAME TABLE, then dolt_status, dolt_diff and dolt_diff_<new name>:
-- how a renamed table shows before and after it is staged and committed.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1), (2, 2);
CALL dolt_commit('-Am', 'first');
RENAME TABLE t TO t2;
SELECT * FROM dolt_status;
SELECT table_name, commit_hash, data_change, schema_change FROM dolt_diff ORDER BY COALESCE(message, commit_hash), table_name;
SELECT to_pk, from_pk, to_commit, diff_type FROM dolt_diff_t2 ORDER BY to_pk;
SELECT * FROM dolt_diff_t;
SELECT * FROM dolt_diff('HEAD', 'WORKING', 't2');
SELECT * FROM dolt_diff('HEAD', 'WORKING', 't');
CALL dolt_add('.');
SELECT * FROM dolt_status;
UPDATE t2 SET v = 5 WHERE pk = 1;
SELECT * FROM dolt_status ORDER BY table_name, staged;
CALL dolt_commit('-am', 'rename');
SELECT table_name, message, data_change, schema_change FROM dolt_diff ORDER BY COALESCE(message, commit_hash), table_name;
SELECT to_pk, from_pk, diff_type FROM dolt_diff_t2 ORDER BY to_pk;
ALTER TABLE t2 RENAME TO t3;
SELECT * FROM dolt_status;
CALL dolt_add('t3');
SELECT * FROM dolt_status;
