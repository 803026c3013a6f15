-- dolt_merge --squash: the changes land staged with no commit and no merge
-- state; dolt_status and dolt_log before and after committing them.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
CALL dolt_commit('-Am', 'first');
CALL dolt_branch('diverged');
CALL dolt_checkout('-b', 'feature');
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-am', 'f1');
INSERT INTO t VALUES (2, 2);
CREATE TABLE u (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'f2');
CALL dolt_checkout('main');
CALL dolt_merge('--squash', 'feature');
SELECT * FROM dolt_status ORDER BY table_name;
SELECT * FROM t ORDER BY pk;
SELECT message FROM dolt_log;
SELECT * FROM dolt_merge_status;
CALL dolt_commit('-m', 'squashed');
SELECT message, parents LIKE '%, %' AS two_parents FROM dolt_log;
CALL dolt_checkout('diverged');
CREATE TABLE d (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'd1');
CALL dolt_merge('--squash', 'feature');
SELECT * FROM dolt_status ORDER BY table_name;
SELECT message, parents LIKE '%, %' AS two_parents FROM dolt_log;
SELECT * FROM dolt_merge_status;
