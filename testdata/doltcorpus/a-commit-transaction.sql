-- dolt_commit inside an explicit transaction and with autocommit off: the
-- commit stays after ROLLBACK, and so does what it committed.
CREATE TABLE t (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'base');
START TRANSACTION;
INSERT INTO t VALUES (1);
CALL dolt_commit('-am', 'in a transaction');
INSERT INTO t VALUES (2);
ROLLBACK;
SELECT message FROM dolt_log;
SELECT * FROM t ORDER BY pk;
SELECT * FROM dolt_status ORDER BY table_name, staged;
SET autocommit = 0;
INSERT INTO t VALUES (3);
CALL dolt_commit('-am', 'autocommit off');
INSERT INTO t VALUES (4);
ROLLBACK;
SET autocommit = 1;
SELECT message FROM dolt_log;
SELECT * FROM t ORDER BY pk;
SELECT * FROM dolt_status ORDER BY table_name, staged;
