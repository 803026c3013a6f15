-- dolt_diff_summary()'s errors: argument counts, NULL, unknown revisions,
-- and between two identical revisions.
CREATE TABLE t (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'first');
SELECT * FROM dolt_diff_summary();
SELECT * FROM dolt_diff_summary('HEAD');
SELECT * FROM dolt_diff_summary('HEAD', 'WORKING', 't', 'u');
SELECT * FROM dolt_diff_summary(NULL, 'HEAD');
SELECT * FROM dolt_diff_summary('HEAD', NULL);
SELECT * FROM dolt_diff_summary('HEAD', 'WORKING', NULL);
SELECT * FROM dolt_diff_summary('nope', 'WORKING');
SELECT * FROM dolt_diff_summary('HEAD', 'nope');
SELECT * FROM dolt_diff_summary('HEAD~3', 'HEAD');
SELECT * FROM dolt_diff_summary('HEAD', 'HEAD');
SELECT * FROM dolt_diff_summary('HEAD...WORKING');
SELECT * FROM dolt_diff_summary(1, 2);
SELECT * FROM dolt_diff_summary('HEAD~1...HEAD');
