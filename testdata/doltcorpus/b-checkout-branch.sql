-- dolt_checkout of existing branches: its result columns, active_branch()
-- and what the session reads after switching, 'Already on branch'.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-Am', 'first');
CALL dolt_branch('feature');
INSERT INTO t VALUES (2, 2);
CALL dolt_commit('-am', 'second');
SELECT active_branch();
CALL dolt_checkout('main');
CALL dolt_checkout('feature');
SELECT active_branch();
SELECT * FROM t ORDER BY pk;
SELECT message FROM dolt_log;
CALL dolt_checkout('feature');
CALL dolt_checkout('main');
SELECT active_branch();
SELECT * FROM t ORDER BY pk;
SELECT DATABASE();
