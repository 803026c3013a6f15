-- dolt_pull's errors: no remote, an unknown remote, a branch the remote
-- lacks, a remote without a branch and no upstream, extra arguments and
-- options, and a remote folder that holds nothing.
CALL dolt_pull();
CALL dolt_pull('origin');
CREATE TABLE t (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'first');
CALL dolt_remote('add', 'origin', 'file://$REMOTE_DIR');
CALL dolt_pull('origin', 'main');
CALL dolt_push('origin', 'main');
CALL dolt_pull('nope');
CALL dolt_pull('nope', 'main');
CALL dolt_pull('origin', 'nob');
CALL dolt_pull('origin');
CALL dolt_pull();
CALL dolt_pull('origin', 'main', 'extra');
CALL dolt_pull('--nope', 'origin', 'main');
CALL dolt_pull(NULL);
CALL dolt_remote('add', 'missing', 'file://$REMOTE_DIR2/none');
CALL dolt_pull('missing', 'main');
CALL dolt_pull('missing');
SELECT name FROM dolt_remote_branches ORDER BY name;
