-- dolt_reset('--soft'): alone it changes nothing; with HEAD~1 it moves the
-- branch back and leaves the undone commit's changes staged.
CREATE TABLE t (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'one');
INSERT INTO t VALUES (1);
CALL dolt_commit('-am', 'two');
INSERT INTO t VALUES (2);
CALL dolt_add('t');
CALL dolt_reset('--soft');
SELECT * FROM dolt_status ORDER BY table_name, staged;
CALL dolt_commit('-m', 'three');
CALL dolt_reset('--soft', 'HEAD~1');
SELECT message FROM dolt_log;
SELECT * FROM dolt_status ORDER BY table_name, staged;
SELECT * FROM t ORDER BY pk;
CALL dolt_reset('--soft', 'HEAD~1');
SELECT message FROM dolt_log;
SELECT * FROM dolt_status ORDER BY table_name, staged;
SELECT * FROM t ORDER BY pk;
