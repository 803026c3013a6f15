-- dolt_push to an empty file:// remote: the result rows (status,
-- message), a second push with nothing new, pushing a branch, -u and
-- --set-upstream (dolt_branches' remote and branch columns), pushing with
-- no arguments once an upstream is set, and the remote-tracking branches
-- the pushes leave in dolt_remote_branches.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-Am', 'first');
CALL dolt_remote('add', 'origin', 'file://$REMOTE_DIR');
CALL dolt_push('origin', 'main');
SELECT * FROM dolt_remote_branches;
SELECT name, hash = HASHOF('main') FROM dolt_remote_branches;
SELECT name, remote, branch FROM dolt_branches;
CALL dolt_push('origin', 'main');
INSERT INTO t VALUES (2, 2);
CALL dolt_commit('-am', 'second');
CALL dolt_push('origin', 'main');
SELECT name, hash = HASHOF('main') FROM dolt_remote_branches;
CALL dolt_branch('b1');
CALL dolt_push('origin', 'b1');
SELECT name FROM dolt_remote_branches ORDER BY name;
CALL dolt_push('-u', 'origin', 'main');
SELECT name, remote, branch FROM dolt_branches ORDER BY name;
CALL dolt_push('--set-upstream', 'origin', 'b1');
SELECT name, remote, branch FROM dolt_branches ORDER BY name;
INSERT INTO t VALUES (3, 3);
CALL dolt_commit('-am', 'third');
CALL dolt_push();
SELECT name, hash = HASHOF('main') FROM dolt_remote_branches ORDER BY name;
CALL dolt_push();
CALL dolt_push('origin');
CALL dolt_branch('b2');
CALL dolt_push('--set-upstream', 'origin', 'b2');
SELECT name, remote, branch FROM dolt_branches ORDER BY name;
CALL dolt_push('origin', 'main:renamed');
SELECT name FROM dolt_remote_branches ORDER BY name;
CALL dolt_push('origin', 'refs/heads/b1:refs/heads/b3');
SELECT name FROM dolt_remote_branches ORDER BY name;
CALL dolt_clone('file://$REMOTE_DIR', 'copy');
USE copy;
SELECT name FROM dolt_branches ORDER BY name;
SELECT name FROM dolt_remote_branches ORDER BY name;
SELECT * FROM t ORDER BY pk;
SELECT message FROM dolt_log;
USE test;
SELECT * FROM dolt_status;
