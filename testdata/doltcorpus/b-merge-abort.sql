-- dolt_merge --abort during a conflicted merge: the result row, the working
-- set restored, merge status cleared; --abort twice.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-Am', 'first');
CALL dolt_checkout('-b', 'feature');
UPDATE t SET v = 10;
CALL dolt_commit('-am', 'f1');
CALL dolt_checkout('main');
UPDATE t SET v = 100;
CALL dolt_commit('-am', 'm1');
SET @@dolt_allow_commit_conflicts = 1;
CALL dolt_merge('feature');
SELECT is_merging, source, target, unmerged_tables FROM dolt_merge_status;
CALL dolt_merge('--abort');
SELECT * FROM dolt_merge_status;
SELECT * FROM dolt_conflicts;
SELECT * FROM dolt_status;
SELECT * FROM t;
CALL dolt_merge('--abort');
SELECT message FROM dolt_log;
