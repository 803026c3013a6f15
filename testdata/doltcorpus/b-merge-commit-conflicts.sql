-- dolt_commit during a merge: refused while conflicts remain, a plain
-- commit after resolving, -a, and a merge commit's parents.
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
CALL dolt_merge('feature');
CALL dolt_commit('-m', 'with conflicts');
CALL dolt_commit('-am', 'with conflicts');
CALL dolt_commit('-Am', 'with conflicts');
CALL dolt_add('t');
SELECT * FROM dolt_status;
SELECT * FROM dolt_conflicts;
CALL dolt_conflicts_resolve('--ours', 't');
CALL dolt_commit('-m', 'not staged');
SELECT * FROM dolt_status;
CALL dolt_commit('--allow-empty', '-m', 'resolved');
SELECT message, parents LIKE '%, %' AS two_parents FROM dolt_log;
SELECT * FROM dolt_merge_status;
