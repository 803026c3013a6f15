-- dolt_merge with uncommitted changes: kept when the merge does not touch
-- them (fast-forward and three-way), refused when it would.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
CREATE TABLE u (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'first');
CALL dolt_checkout('-b', 'feature');
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-am', 'f1');
CALL dolt_checkout('main');
INSERT INTO u VALUES (1);
CALL dolt_merge('feature');
SELECT * FROM dolt_status;
SELECT message FROM dolt_log;
SELECT * FROM t;
CALL dolt_reset('--hard', 'HEAD~1');
INSERT INTO t VALUES (1, 5);
CALL dolt_merge('feature');
SELECT * FROM dolt_status;
SELECT * FROM t;
CALL dolt_reset('--hard');
CREATE TABLE m (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'm1');
INSERT INTO u VALUES (2);
CALL dolt_add('u');
CALL dolt_merge('feature');
SELECT * FROM dolt_status;
SELECT message FROM dolt_log;
