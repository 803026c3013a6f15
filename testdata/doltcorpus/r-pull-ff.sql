-- dolt_pull that fast-forwards: its result row (fast_forward, conflicts,
-- message), the tracking branch a clone sets up, pull with no
-- arguments, with a remote only, with a branch, when up to date and when
-- ahead of the remote (a warning says so).
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-Am', 'first');
CALL dolt_remote('add', 'origin', 'file://$REMOTE_DIR');
CALL dolt_push('origin', 'main');
CALL dolt_clone('file://$REMOTE_DIR', 'other');
USE test;
INSERT INTO t VALUES (2, 2);
CALL dolt_commit('-am', 'second');
CALL dolt_push('origin', 'main');
USE other;
SELECT name, remote, branch FROM dolt_branches;
CALL dolt_pull();
SELECT * FROM t ORDER BY pk;
SELECT message FROM dolt_log;
SELECT HASHOF('main') = HASHOF('origin/main');
CALL dolt_pull();
SHOW WARNINGS;
CALL dolt_pull('origin');
SHOW WARNINGS;
USE test;
INSERT INTO t VALUES (3, 3);
CALL dolt_commit('-am', 'third');
CALL dolt_push('origin', 'main');
USE other;
CALL dolt_pull('origin', 'main');
SELECT * FROM t ORDER BY pk;
SELECT * FROM dolt_status;
USE test;
CALL dolt_pull('origin');
CALL dolt_pull();
CALL dolt_pull('origin', 'main');
SHOW WARNINGS;
CALL dolt_push('-u', 'origin', 'main');
CALL dolt_pull('origin');
CALL dolt_pull();
INSERT INTO t VALUES (4, 4);
CALL dolt_commit('-am', 'fourth');
CALL dolt_pull();
SHOW WARNINGS;
SELECT message FROM dolt_log LIMIT 1;
