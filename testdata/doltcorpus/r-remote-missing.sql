-- A file:// remote whose folder is gone (it lived in a database's folder,
-- and the database was dropped): fetch, pull, push and clone each fail
-- with their own error. dolt_remote('add') makes a missing folder, so
-- only a folder removed after it is missing.
CREATE DATABASE holder;
USE holder;
CREATE TABLE t (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'in holder');
CALL dolt_remote('add', 'origin', 'file://relative/r');
SELECT url FROM dolt_remotes;
CALL dolt_push('origin', 'main');
USE test;
CREATE TABLE t (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'in test');
CALL dolt_remote('add', 'gone', 'file://$DATA_DIR/holder/relative/r');
CALL dolt_fetch('gone');
SELECT name, latest_commit_message FROM dolt_remote_branches;
DROP DATABASE holder;
CALL dolt_fetch('gone');
CALL dolt_fetch('gone', 'main');
CALL dolt_pull('gone', 'main');
CALL dolt_pull('gone');
CALL dolt_push('gone', 'main');
CALL dolt_push('gone', ':main');
SELECT name, latest_commit_message FROM dolt_remote_branches;
SELECT * FROM t AS OF 'gone/main';
CALL dolt_clone('file://$DATA_DIR/holder/relative/r', 'copy');
SHOW DATABASES;
