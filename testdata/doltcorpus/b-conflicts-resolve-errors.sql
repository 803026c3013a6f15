-- dolt_conflicts_resolve's refusals: no side, both sides, no tables, unknown
-- tables; resolving a table without conflicts.
CREATE TABLE clean (pk INT PRIMARY KEY);
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
SET @@dolt_allow_commit_conflicts = 1;
CALL dolt_conflicts_resolve('--ours', 't');
CALL dolt_merge('feature');
CALL dolt_conflicts_resolve('t');
CALL dolt_conflicts_resolve();
CALL dolt_conflicts_resolve('--ours');
CALL dolt_conflicts_resolve('--ours', '--theirs', 't');
CALL dolt_conflicts_resolve('--ours', 'nosuch');
CALL dolt_conflicts_resolve('--bogus', 't');
CALL dolt_conflicts_resolve('--theirs', 'clean');
SELECT * FROM dolt_conflicts;
CALL dolt_conflicts_resolve('--theirs', 't', 'clean');
SELECT * FROM dolt_conflicts;
