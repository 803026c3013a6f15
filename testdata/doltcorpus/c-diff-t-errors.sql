-- dolt_diff_<table> for tables that do not exist, were dropped, or are
-- keyless, and its name's case.
SELECT * FROM dolt_diff_nope;
DESCRIBE dolt_diff_nope;
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-Am', 'first');
SELECT to_pk, diff_type FROM DOLT_DIFF_T;
SELECT to_pk, diff_type FROM dolt_diff_T;
DROP TABLE t;
SELECT to_pk, from_pk, diff_type FROM dolt_diff_t;
CALL dolt_commit('-am', 'drop');
SELECT to_pk, from_pk, diff_type FROM dolt_diff_t;
INSERT INTO dolt_diff_nope VALUES (1);
CREATE TABLE k (a INT, b INT);
INSERT INTO k VALUES (1, 2), (1, 2);
DESCRIBE dolt_diff_k;
SELECT to_a, to_b, from_a, from_b, diff_type FROM dolt_diff_k;
CALL dolt_commit('-Am', 'keyless');
DELETE FROM k LIMIT 1;
SELECT to_a, to_b, from_a, from_b, diff_type FROM dolt_diff_k ORDER BY to_commit_date;
UPDATE k SET b = 3;
SELECT to_a, to_b, from_a, from_b, diff_type FROM dolt_diff_k WHERE to_commit = 'WORKING' ORDER BY diff_type;
INSERT INTO dolt_diff_t VALUES (1);
