-- dolt_diff_<table> across schema changes: a column added, then one
-- dropped; the diff table's columns follow the working schema.
CREATE TABLE t (pk INT PRIMARY KEY, a INT, b INT);
INSERT INTO t VALUES (1, 10, 100);
CALL dolt_commit('-Am', 'first');
ALTER TABLE t ADD COLUMN c VARCHAR(5);
UPDATE t SET c = 'x' WHERE pk = 1;
CALL dolt_commit('-am', 'add c');
DESCRIBE dolt_diff_t;
SELECT to_pk, to_a, to_b, to_c, from_pk, from_a, from_b, from_c, diff_type FROM dolt_diff_t ORDER BY to_commit_date;
ALTER TABLE t DROP COLUMN b;
DESCRIBE dolt_diff_t;
SELECT * FROM dolt_diff_t WHERE to_commit = 'WORKING';
INSERT INTO t VALUES (2, 20, 'y');
SELECT to_pk, to_a, to_c, from_pk, from_a, from_c, diff_type FROM dolt_diff_t WHERE to_commit = 'WORKING' ORDER BY COALESCE(to_pk, from_pk);
ALTER TABLE t RENAME COLUMN a TO aa;
SELECT to_pk, to_aa, from_aa, diff_type FROM dolt_diff_t WHERE to_commit = 'WORKING' ORDER BY COALESCE(to_pk, from_pk);
