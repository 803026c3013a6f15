-- dolt_clone's errors: an existing database name, a path that holds no
-- database (missing or empty), missing and extra arguments, a branch
-- the remote lacks, bad options and names.
CREATE TABLE t (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'first');
CALL dolt_remote('add', 'origin', 'file://$REMOTE_DIR/store');
CALL dolt_push('origin', 'main');
CALL dolt_clone('file://$REMOTE_DIR/store', 'test');
CALL dolt_clone('file://$REMOTE_DIR/store', 'copy');
CALL dolt_clone('file://$REMOTE_DIR/store', 'copy');
CALL dolt_clone('file://$REMOTE_DIR2/none', 'nd');
CALL dolt_clone('file://$REMOTE_DIR2', 'nd');
CALL dolt_clone();
CALL dolt_clone('file://$REMOTE_DIR/store', 'x', 'extra');
CALL dolt_clone('-b', 'nob', 'file://$REMOTE_DIR/store', 'nb');
CALL dolt_clone('--nope', 'file://$REMOTE_DIR/store', 'nb');
CALL dolt_clone('file://$REMOTE_DIR/store', 'bad/name');
CALL dolt_clone('not a url', 'x');
SHOW DATABASES;
