-- dolt_diff_stat()'s errors: argument counts, NULL, unknown revisions and
-- tables; and a schema-only change.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-Am', 'first');
SELECT * FROM dolt_diff_stat();
SELECT * FROM dolt_diff_stat('HEAD');
SELECT * FROM dolt_diff_stat('HEAD', 'WORKING', 't', 'u');
SELECT * FROM dolt_diff_stat(NULL, 'HEAD');
SELECT * FROM dolt_diff_stat('HEAD', 'WORKING', NULL);
SELECT * FROM dolt_diff_stat('nope', 'WORKING');
SELECT * FROM dolt_diff_stat('HEAD', 'WORKING', 'nope');
SELECT * FROM dolt_diff_stat('HEAD~9', 'HEAD');
SELECT * FROM dolt_diff_stat('HEAD...WORKING');
SELECT * FROM dolt_diff_stat('HEAD', 'HEAD');
ALTER TABLE t ADD COLUMN w INT;
SELECT * FROM dolt_diff_stat('HEAD', 'WORKING');
ALTER TABLE t DROP COLUMN v;
SELECT * FROM dolt_diff_stat('HEAD', 'WORKING');
