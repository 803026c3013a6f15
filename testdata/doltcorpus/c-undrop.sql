-- dolt_undrop() after DROP DATABASE: a second database dropped and
-- restored with its tables and history; its errors.
CREATE DATABASE d2;
CREATE TABLE d2.t (pk INT PRIMARY KEY);
INSERT INTO d2.t VALUES (1);
USE d2;
CALL dolt_commit('-Am', 'in d2');
INSERT INTO t VALUES (2);
USE test;
CALL dolt_undrop('d2');
DROP DATABASE d2;
SHOW DATABASES;
SELECT * FROM d2.t;
CALL dolt_undrop();
CALL dolt_undrop('nope');
CALL dolt_undrop('a', 'b');
CALL dolt_undrop(NULL);
CALL dolt_undrop('D2');
SHOW DATABASES;
SELECT * FROM d2.t ORDER BY pk;
SELECT message FROM d2.dolt_log;
SELECT * FROM d2.dolt_status;
CALL dolt_undrop('d2');
DROP DATABASE d2;
CREATE DATABASE d2;
CALL dolt_undrop('d2');
SHOW TABLES FROM d2;
