-- dolt_fetch's errors: no remote, an unknown remote, a branch the remote
-- lacks, bad options; a remote whose folder does not exist yet or holds
-- no database fetches nothing and succeeds.
CALL dolt_fetch();
CALL dolt_fetch('origin');
CREATE TABLE t (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'first');
CALL dolt_remote('add', 'origin', 'file://$REMOTE_DIR');
CALL dolt_push('origin', 'main');
CALL dolt_fetch('nope');
CALL dolt_fetch('origin', 'nob');
CALL dolt_fetch('origin', 'refs/heads/nob:refs/remotes/origin/nob');
CALL dolt_fetch('--nope');
CALL dolt_fetch(NULL);
CALL dolt_fetch('origin', NULL);
CALL dolt_remote('add', 'missing', 'file://$REMOTE_DIR2/none');
CALL dolt_fetch('missing');
CALL dolt_remote('add', 'empty', 'file://$REMOTE_DIR2');
CALL dolt_fetch('empty');
CALL dolt_fetch('empty', 'main');
CALL dolt_remote('add', 'unreadable', 'file:///dev/null/x');
CALL dolt_fetch('unreadable');
SELECT name FROM dolt_remote_branches ORDER BY name;
