-- RENAME TABLE, then dolt_diff_summary, dolt_diff_stat, dolt_schema_diff
-- and dolt_patch, by the old and the new name, with a data change too.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1), (2, 2);
CALL dolt_commit('-Am', 'first');
RENAME TABLE t TO t2;
SELECT * FROM dolt_diff_summary('HEAD', 'WORKING');
SELECT * FROM dolt_diff_summary('HEAD', 'WORKING', 't');
SELECT * FROM dolt_diff_summary('HEAD', 'WORKING', 't2');
SELECT * FROM dolt_diff_stat('HEAD', 'WORKING');
SELECT * FROM dolt_diff_stat('HEAD', 'WORKING', 't2');
SELECT * FROM dolt_diff_stat('HEAD', 'WORKING', 't');
UPDATE t2 SET v = 5 WHERE pk = 1;
SELECT * FROM dolt_diff_summary('HEAD', 'WORKING');
SELECT * FROM dolt_diff_stat('HEAD', 'WORKING');
SELECT table_name, diff_type, statement FROM dolt_patch('HEAD', 'WORKING') ORDER BY statement_order;
SELECT from_table_name, to_table_name FROM dolt_schema_diff('HEAD', 'WORKING');
CALL dolt_commit('-Am', 'rename');
SELECT * FROM dolt_diff_summary('HEAD~1', 'HEAD');
SELECT * FROM dolt_diff_summary('HEAD', 'HEAD~1');
SELECT * FROM dolt_diff_summary('HEAD~2', 'HEAD');
