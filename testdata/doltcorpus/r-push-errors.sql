-- dolt_push's errors: an unknown remote, an unknown branch, no upstream,
-- extra arguments and options, no remote at all, and a remote folder
-- that cannot be made.
CALL dolt_push('origin', 'main');
CALL dolt_push();
CREATE TABLE t (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'first');
CALL dolt_remote('add', 'origin', 'file://$REMOTE_DIR');
CALL dolt_push('nope', 'main');
CALL dolt_push('nope');
CALL dolt_push('origin', 'nobranch');
CALL dolt_push('origin');
CALL dolt_push();
CALL dolt_push('origin', 'main', 'extra');
CALL dolt_push('--nope', 'origin', 'main');
CALL dolt_push('origin', 'main:');
CALL dolt_push('origin', NULL);
CALL dolt_push(NULL, 'main');
CALL dolt_remote('add', 'unmakeable', 'file:///dev/null/x');
CALL dolt_push('unmakeable', 'main');
SELECT name FROM dolt_remote_branches;
CALL dolt_push('origin', 'main');
SELECT name FROM dolt_remote_branches;
