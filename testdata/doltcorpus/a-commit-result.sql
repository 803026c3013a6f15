-- dolt_commit's result: one column, hash, naming the new HEAD; the commit it
-- makes as dolt_log and dolt_status show it afterwards.
CREATE TABLE t (pk INT PRIMARY KEY, v VARCHAR(10));
INSERT INTO t VALUES (1, 'a');
CALL dolt_add('t');
CALL dolt_commit('-m', 'first');
SELECT hashof('HEAD') = (SELECT commit_hash FROM dolt_log LIMIT 1);
SELECT * FROM dolt_log LIMIT 1;
SELECT * FROM dolt_status ORDER BY table_name, staged;
SELECT COUNT(*) FROM dolt_log;
SELECT parents = hashof('HEAD~1') FROM dolt_log LIMIT 1;
