-- The dolt_merge_status table: columns, outside a merge, during a conflicted
-- merge, after resolving and committing it.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1), (2, 2);
CALL dolt_commit('-Am', 'first');
CALL dolt_checkout('-b', 'feature');
UPDATE t SET v = 10 WHERE pk = 1;
INSERT INTO t VALUES (3, 30);
CALL dolt_commit('-am', 'f1');
CALL dolt_checkout('main');
UPDATE t SET v = 100 WHERE pk = 1;
INSERT INTO t VALUES (3, 300);
CALL dolt_commit('-am', 'm1');
DESCRIBE dolt_merge_status;
SELECT * FROM dolt_merge_status;
SET @@dolt_allow_commit_conflicts = 1;
CALL dolt_merge('feature');
SELECT * FROM dolt_merge_status;
SELECT source_commit = (SELECT hash FROM dolt_branches WHERE name = 'feature') AS is_feature FROM dolt_merge_status;
CALL dolt_conflicts_resolve('--ours', 't');
SELECT * FROM dolt_merge_status;
CALL dolt_commit('-am', 'merged');
SELECT * FROM dolt_merge_status;
SELECT message FROM dolt_log LIMIT 1;
