-- dolt_revert of one commit: result columns, the new commit's message and
-- author, the rows undone; reverting the revert.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
CALL dolt_commit('-Am', 'first');
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-am', 'add 1');
INSERT INTO t VALUES (2, 2);
CALL dolt_commit('-am', 'add 2');
UPDATE t SET v = 10 WHERE pk = 1;
CALL dolt_commit('-am', 'update 1');
CALL dolt_revert('HEAD~1');
SELECT message, author, committer, parents LIKE '%, %' AS two_parents FROM dolt_log LIMIT 2;
SELECT * FROM t ORDER BY pk;
CALL dolt_revert('HEAD');
SELECT message FROM dolt_log LIMIT 1;
SELECT * FROM t ORDER BY pk;
CALL dolt_revert('--author', 'Ann Other <ann@example.com>', 'HEAD~2');
SELECT message, author, author_email, committer FROM dolt_log LIMIT 1;
SELECT * FROM t ORDER BY pk;
SELECT * FROM dolt_status;
