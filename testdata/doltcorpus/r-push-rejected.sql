-- A push that is not a fast-forward of the remote's branch is rejected
-- with Git's message; --force and -f replace the remote's branch; the
-- other side then sees the forced history.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-Am', 'first');
CALL dolt_remote('add', 'origin', 'file://$REMOTE_DIR');
CALL dolt_push('origin', 'main');
CALL dolt_clone('file://$REMOTE_DIR', 'other');
USE other;
INSERT INTO t VALUES (2, 2);
CALL dolt_commit('-am', 'other second');
CALL dolt_push('origin', 'main');
USE test;
INSERT INTO t VALUES (3, 3);
CALL dolt_commit('-am', 'test second');
CALL dolt_push('origin', 'main');
SELECT name, hash = HASHOF('main') FROM dolt_remote_branches;
CALL dolt_push('--force', 'origin', 'main');
SELECT name, hash = HASHOF('main') FROM dolt_remote_branches;
USE other;
CALL dolt_push('origin', 'main');
CALL dolt_fetch();
SELECT * FROM t AS OF 'origin/main' ORDER BY pk;
SELECT message FROM dolt_log('origin/main');
CALL dolt_push('-f', 'origin', 'main');
USE test;
CALL dolt_push('origin', 'main');
CALL dolt_fetch();
SELECT message FROM dolt_log('origin/main');
CALL dolt_push('origin', '+main');
SELECT message FROM dolt_log('origin/main');
