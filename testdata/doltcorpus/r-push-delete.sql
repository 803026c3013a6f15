-- dolt_push('origin', ':b') deletes the remote's branch b: the result
-- row, the remote-tracking branches of the pusher and of a fetcher
-- (fetch keeps a deleted branch's tracking ref, --prune drops it), and
-- deleting a branch the remote does not have.
CREATE TABLE t (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'first');
CALL dolt_branch('b');
CALL dolt_branch('c');
CALL dolt_remote('add', 'origin', 'file://$REMOTE_DIR');
CALL dolt_push('origin', 'main');
CALL dolt_push('-u', 'origin', 'b');
CALL dolt_push('origin', 'c');
CALL dolt_clone('file://$REMOTE_DIR', 'other');
USE test;
SELECT name FROM dolt_remote_branches ORDER BY name;
CALL dolt_push('origin', ':b');
SELECT name FROM dolt_remote_branches ORDER BY name;
SELECT name, remote, branch FROM dolt_branches ORDER BY name;
CALL dolt_push('origin', ':b');
CALL dolt_push('origin', ':nope');
CALL dolt_push('origin', ':');
CALL dolt_push('origin', ':refs/heads/c');
SELECT name FROM dolt_remote_branches ORDER BY name;
SELECT name FROM dolt_branches ORDER BY name;
USE other;
SELECT name FROM dolt_remote_branches ORDER BY name;
CALL dolt_fetch();
SELECT name FROM dolt_remote_branches ORDER BY name;
CALL dolt_fetch('--prune');
SELECT name FROM dolt_remote_branches ORDER BY name;
CALL dolt_clone('file://$REMOTE_DIR', 'third');
USE third;
SELECT name FROM dolt_remote_branches ORDER BY name;
