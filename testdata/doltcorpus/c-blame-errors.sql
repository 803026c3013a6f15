-- dolt_blame_<table> for keyless, unknown, uncommitted and dropped
-- tables, and writing to it.
SELECT * FROM dolt_blame_nope;
CREATE TABLE k (a INT);
INSERT INTO k VALUES (1);
SELECT * FROM dolt_blame_k;
CALL dolt_commit('-Am', 'k');
SELECT * FROM dolt_blame_k;
CREATE TABLE t (pk INT PRIMARY KEY);
INSERT INTO t VALUES (1);
SELECT * FROM dolt_blame_t;
CALL dolt_commit('-Am', 't');
SELECT pk, message FROM dolt_blame_t;
INSERT INTO dolt_blame_t VALUES (2, 'x', NULL, 'a', 'b', 'c');
DELETE FROM dolt_blame_t;
DROP TABLE t;
SELECT * FROM dolt_blame_t;
SELECT * FROM DOLT_BLAME_K;
