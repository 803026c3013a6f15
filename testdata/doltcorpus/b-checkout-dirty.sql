-- dolt_checkout with uncommitted changes: each branch keeps its own working
-- set, staged and unstaged, across switches and -b.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-Am', 'first');
CALL dolt_branch('feature');
UPDATE t SET v = 2;
CALL dolt_checkout('feature');
SELECT * FROM t;
SELECT * FROM dolt_status;
CALL dolt_checkout('main');
SELECT * FROM t;
SELECT * FROM dolt_status;
CALL dolt_add('t');
CALL dolt_checkout('-b', 'f2');
SELECT * FROM t;
SELECT * FROM dolt_status;
INSERT INTO t VALUES (3, 3);
CALL dolt_checkout('main');
SELECT * FROM dolt_status;
SELECT * FROM t ORDER BY pk;
SELECT * FROM t AS OF 'f2' ORDER BY pk;
SELECT * FROM `test/f2`.t ORDER BY pk;
