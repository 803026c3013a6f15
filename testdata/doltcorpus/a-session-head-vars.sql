-- The per-database session variables @@test_head, @@test_head_ref,
-- @@test_working and @@test_staged as commits, adds and checkouts move them.
SHOW VARIABLES LIKE 'test\_%';
SELECT @@test_head = hashof('HEAD'), @@test_head_ref;
SELECT @@test_working = dolt_hashof_db('WORKING'), @@test_staged = dolt_hashof_db('STAGED'), @@test_working = @@test_staged;
CREATE TABLE t (pk INT PRIMARY KEY);
SELECT @@test_working = @@test_staged, @@test_working = dolt_hashof_db();
CALL dolt_add('t');
SELECT @@test_working = @@test_staged, @@test_staged = dolt_hashof_db('STAGED');
SET @old = @@test_head;
CALL dolt_commit('-m', 'c');
SELECT @@test_head = @old, @@test_head = hashof('HEAD');
CALL dolt_checkout('-b', 'feat');
SELECT @@test_head_ref, @@test_head = hashof('main');
SELECT @@global.test_head_ref, @@test_default_branch;
