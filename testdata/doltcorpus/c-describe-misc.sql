-- DESCRIBE and simple use of dolt_backups, dolt_tests, dolt_query_catalog
-- and dolt_nonlocal_tables; which ones dolt_status tracks.
DESCRIBE dolt_backups;
DESCRIBE dolt_tests;
DESCRIBE dolt_query_catalog;
DESCRIBE dolt_nonlocal_tables;
SELECT * FROM dolt_backups;
SELECT * FROM dolt_tests;
SELECT * FROM dolt_query_catalog;
SELECT * FROM dolt_nonlocal_tables;
INSERT INTO dolt_tests VALUES ('t1', 'g', 'SELECT 1', 'expected_single_value', '==', '1');
INSERT INTO dolt_query_catalog VALUES ('q1', 1, 'name', 'SELECT 1', 'desc');
SELECT * FROM dolt_tests;
SELECT * FROM dolt_query_catalog;
SELECT * FROM dolt_status ORDER BY table_name;
CALL dolt_commit('-Am', 'tests and queries');
SELECT table_name FROM dolt_diff ORDER BY table_name;
SELECT * FROM dolt_test_run();
INSERT INTO dolt_backups VALUES ('b', 'https://example.com/x', '{}');
