-- dolt_statistics: DESCRIBE, empty before ANALYZE TABLE, then one row per
-- index of the analyzed table.
DESCRIBE dolt_statistics;
SELECT * FROM dolt_statistics;
CREATE TABLE t (pk INT PRIMARY KEY, v INT, KEY iv (v));
INSERT INTO t VALUES (1, 1), (2, 2), (3, 3), (4, 1);
ANALYZE TABLE t;
SELECT * FROM dolt_statistics ORDER BY table_name, index_name;
SELECT index_name, row_count, distinct_count FROM dolt_statistics WHERE table_name = 't' ORDER BY index_name;
SELECT * FROM dolt_status;
INSERT INTO dolt_statistics VALUES ('test', 't', 'x', 1, 1, 0, 'x', 'int', '1', 1, '2020-01-01 00:00:00', '', '', '', '', '');
