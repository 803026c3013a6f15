-- dolt_cherry_pick of commits from another branch: result columns, the new
-- commit's message and author, the applied rows.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-Am', 'first');
CALL dolt_checkout('-b', 'feature');
INSERT INTO t VALUES (2, 2);
CALL dolt_commit('-am', 'f add 2');
UPDATE t SET v = 10 WHERE pk = 1;
CALL dolt_commit('-am', 'f update 1', '--author', 'Ann Other <ann@example.com>');
CALL dolt_checkout('main');
CALL dolt_cherry_pick('feature~1');
SELECT message, author, committer, parents LIKE '%, %' AS two_parents FROM dolt_log;
SELECT * FROM t ORDER BY pk;
SET @h = (SELECT hash FROM dolt_branches WHERE name = 'feature');
CALL dolt_cherry_pick(@h);
SELECT message, author, author_email FROM dolt_log LIMIT 1;
SELECT * FROM t ORDER BY pk;
SELECT * FROM dolt_status;
