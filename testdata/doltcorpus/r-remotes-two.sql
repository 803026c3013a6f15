-- Two file:// remotes on one database: push to each, the tracking
-- branches of each in dolt_remote_branches, a fetch from one, a pull
-- from the other, and removing a remote drops its tracking branches.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-Am', 'first');
CALL dolt_remote('add', 'origin', 'file://$REMOTE_DIR');
CALL dolt_remote('add', 'backup', 'file://$REMOTE_DIR2');
CALL dolt_push('origin', 'main');
CALL dolt_push('backup', 'main');
SELECT name, url FROM dolt_remotes ORDER BY name;
SELECT name, hash = HASHOF('main') FROM dolt_remote_branches ORDER BY name;
INSERT INTO t VALUES (2, 2);
CALL dolt_commit('-am', 'second');
CALL dolt_push('backup', 'main');
SELECT name, latest_commit_message FROM dolt_remote_branches ORDER BY name;
SELECT message FROM dolt_log('origin/main');
SELECT message FROM dolt_log('backup/main');
CALL dolt_clone('file://$REMOTE_DIR', 'other');
USE other;
CALL dolt_remote('add', 'backup', 'file://$REMOTE_DIR2');
CALL dolt_fetch('backup');
SELECT name, latest_commit_message FROM dolt_remote_branches ORDER BY name;
CALL dolt_pull('backup', 'main');
SELECT * FROM t ORDER BY pk;
CALL dolt_push('origin', 'main');
CALL dolt_remote('remove', 'backup');
SELECT name FROM dolt_remote_branches ORDER BY name;
SELECT * FROM t AS OF 'backup/main';
USE test;
CALL dolt_fetch('origin');
SELECT name, latest_commit_message FROM dolt_remote_branches ORDER BY name;
