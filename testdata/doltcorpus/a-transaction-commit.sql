-- @@dolt_transaction_commit: every SQL transaction commit makes a Dolt
-- commit, with @@dolt_transaction_commit_message as its message.
CREATE TABLE t (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'base');
SELECT @@dolt_transaction_commit, @@dolt_transaction_commit_message;
SET @@dolt_transaction_commit = 1;
INSERT INTO t VALUES (1);
SELECT message FROM dolt_log;
SELECT * FROM dolt_status ORDER BY table_name, staged;
SET @@dolt_transaction_commit_message = 'auto message';
INSERT INTO t VALUES (2);
START TRANSACTION;
INSERT INTO t VALUES (3);
INSERT INTO t VALUES (4);
COMMIT;
SELECT message FROM dolt_log;
SET @@dolt_transaction_commit = 0;
INSERT INTO t VALUES (5);
SELECT message FROM dolt_log LIMIT 1;
SELECT * FROM dolt_status ORDER BY table_name, staged;
