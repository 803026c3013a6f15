-- dolt_diff_stat(): row and cell counts per table between revisions,
-- with and without a table name, and for a keyless table.
CREATE TABLE t (pk INT PRIMARY KEY, v VARCHAR(10), w INT);
CREATE TABLE u (id INT PRIMARY KEY);
INSERT INTO t VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3);
INSERT INTO u VALUES (1);
CALL dolt_commit('-Am', 'first');
SELECT * FROM dolt_diff_stat('HEAD~1', 'HEAD') ORDER BY table_name;
SELECT * FROM dolt_diff_stat('HEAD', 'WORKING');
UPDATE t SET v = 'bb' WHERE pk = 2;
UPDATE t SET v = 'cc', w = 33 WHERE pk = 3;
INSERT INTO t VALUES (4, 'd', 4);
DELETE FROM t WHERE pk = 1;
DELETE FROM u;
CREATE TABLE k (a INT);
INSERT INTO k VALUES (1), (1);
SELECT * FROM dolt_diff_stat('HEAD', 'WORKING') ORDER BY table_name;
SELECT * FROM dolt_diff_stat('HEAD', 'WORKING', 't');
SELECT * FROM dolt_diff_stat('HEAD..WORKING') ORDER BY table_name;
SELECT * FROM dolt_diff_stat('WORKING', 'HEAD', 'u');
CALL dolt_add('u');
SELECT table_name, rows_deleted FROM dolt_diff_stat('HEAD', 'STAGED') ORDER BY table_name;
SELECT table_name, rows_added, rows_deleted, rows_modified FROM dolt_diff_stat('STAGED', 'WORKING') ORDER BY table_name;
