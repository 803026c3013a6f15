-- dolt_workspace_<table>: staged and unstaged row changes, numbered by id,
-- staged ones first; DESCRIBE; schema and keyless tables.
CREATE TABLE t (pk INT PRIMARY KEY, v VARCHAR(10));
INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c');
CALL dolt_commit('-Am', 'first');
DESCRIBE dolt_workspace_t;
SELECT * FROM dolt_workspace_t;
UPDATE t SET v = 'bb' WHERE pk = 2;
CALL dolt_add('t');
INSERT INTO t VALUES (4, 'd');
DELETE FROM t WHERE pk = 1;
SELECT * FROM dolt_workspace_t;
UPDATE t SET v = 'bbb' WHERE pk = 2;
SELECT * FROM dolt_workspace_t;
SELECT staged, COUNT(*) FROM dolt_workspace_t GROUP BY staged ORDER BY staged;
CALL dolt_commit('-am', 'second');
SELECT * FROM dolt_workspace_t;
CREATE TABLE n (id INT PRIMARY KEY, x INT);
INSERT INTO n VALUES (1, 1);
DESCRIBE dolt_workspace_n;
SELECT * FROM dolt_workspace_n;
CREATE TABLE k (a INT);
INSERT INTO k VALUES (1), (1);
DESCRIBE dolt_workspace_k;
SELECT * FROM dolt_workspace_k;
SELECT * FROM dolt_workspace_nope;
