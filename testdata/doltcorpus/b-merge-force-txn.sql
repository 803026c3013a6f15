-- @@dolt_force_transaction_commit with a conflicting merge: COMMIT goes
-- through; what is left of the merge afterwards.
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
SELECT @@dolt_force_transaction_commit;
SET autocommit = 0;
SET @@dolt_force_transaction_commit = 1;
CALL dolt_merge('feature');
SELECT * FROM dolt_conflicts;
COMMIT;
SELECT * FROM dolt_conflicts;
SELECT is_merging, source, target, unmerged_tables FROM dolt_merge_status;
SELECT * FROM dolt_status;
SET autocommit = 1;
SET @@dolt_force_transaction_commit = 0;
SELECT * FROM dolt_conflicts;
CALL dolt_merge('--abort');
SELECT * FROM dolt_merge_status;
