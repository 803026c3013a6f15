-- dolt_patch()'s errors and edge cases: argument counts, NULL, unknown
-- revisions and tables, a..b and a...b, no changes, DESCRIBE.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-Am', 'first');
UPDATE t SET v = 2;
SELECT * FROM dolt_patch();
SELECT * FROM dolt_patch('HEAD');
SELECT * FROM dolt_patch('HEAD', 'WORKING', 't', 'x');
SELECT * FROM dolt_patch(NULL, 'WORKING');
SELECT * FROM dolt_patch('HEAD', 'WORKING', NULL);
SELECT * FROM dolt_patch('nope', 'WORKING');
SELECT * FROM dolt_patch('HEAD', 'WORKING', 'nope');
SELECT * FROM dolt_patch('HEAD~4', 'HEAD');
SELECT statement FROM dolt_patch('HEAD..WORKING');
SELECT * FROM dolt_patch('HEAD...WORKING');
SELECT statement FROM dolt_patch('HEAD~1...HEAD') ORDER BY statement_order;
SELECT * FROM dolt_patch('HEAD', 'HEAD');
SELECT * FROM dolt_patch('WORKING', 'WORKING');
SELECT statement FROM dolt_patch('STAGED', 'WORKING');
DESCRIBE dolt_patch('HEAD', 'WORKING');
SELECT COUNT(*) FROM dolt_patch('HEAD~1', 'WORKING');
