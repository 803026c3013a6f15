-- dolt_diff_<table>: DESCRIBE and SELECT * over commits and the working
-- set, with added, modified and removed rows.
CREATE TABLE t (pk INT PRIMARY KEY, v VARCHAR(10));
DESCRIBE dolt_diff_t;
SELECT * FROM dolt_diff_t;
INSERT INTO t VALUES (1, 'a'), (2, 'b');
CALL dolt_commit('-Am', 'first');
SELECT * FROM dolt_diff_t ORDER BY to_commit_date, to_pk;
UPDATE t SET v = 'bb' WHERE pk = 2;
INSERT INTO t VALUES (3, 'c');
DELETE FROM t WHERE pk = 1;
SELECT * FROM dolt_diff_t WHERE to_commit = 'WORKING' ORDER BY COALESCE(to_pk, from_pk);
CALL dolt_commit('-am', 'second');
SELECT to_pk, to_v, from_pk, from_v, diff_type FROM dolt_diff_t ORDER BY to_commit_date, COALESCE(to_pk, from_pk);
SELECT diff_type, COUNT(*) FROM dolt_diff_t GROUP BY diff_type ORDER BY diff_type;
SHOW CREATE TABLE dolt_diff_t;
