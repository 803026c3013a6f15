-- dolt_checkout -b and -B: new branches at HEAD or a start point, existing
-- names, resetting with -B, bad names and start points.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
CALL dolt_commit('-Am', 'first');
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-am', 'second');
CALL dolt_checkout('-b', 'f1');
SELECT active_branch();
CALL dolt_checkout('-b', 'f1');
CALL dolt_checkout('-b', 'f2', 'HEAD~1');
SELECT active_branch();
SELECT message FROM dolt_log;
CALL dolt_checkout('-B', 'f1', 'HEAD');
SELECT active_branch();
SELECT message FROM dolt_log;
CALL dolt_checkout('-B', 'f3');
SELECT active_branch();
CALL dolt_checkout('-b', 'bad name');
CALL dolt_checkout('-b', 'f4', 'nosuch');
CALL dolt_checkout('-b');
CALL dolt_checkout('-b', 'main');
SELECT name, latest_commit_message FROM dolt_branches ORDER BY name;
