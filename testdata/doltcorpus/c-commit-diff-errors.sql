-- dolt_commit_diff_<table> without its filters, with only one of them,
-- with unknown commits and tables.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-Am', 'first');
UPDATE t SET v = 2;
CALL dolt_commit('-am', 'second');
SELECT * FROM dolt_commit_diff_t;
SELECT COUNT(*) FROM dolt_commit_diff_t;
SELECT * FROM dolt_commit_diff_t WHERE to_commit = 'HEAD';
SELECT * FROM dolt_commit_diff_t WHERE from_commit = 'HEAD~1';
SELECT * FROM dolt_commit_diff_t WHERE to_commit IN ('HEAD', 'WORKING') AND from_commit = 'HEAD~1';
SELECT * FROM dolt_commit_diff_t WHERE to_commit = 'nope' AND from_commit = 'HEAD';
SELECT * FROM dolt_commit_diff_t WHERE to_commit = 'HEAD' AND from_commit = 'HEAD~7';
SELECT * FROM dolt_commit_diff_nope WHERE to_commit = 'HEAD' AND from_commit = 'HEAD~1';
SELECT * FROM dolt_commit_diff_t WHERE diff_type = 'modified';
SELECT to_pk FROM dolt_commit_diff_t WHERE to_commit = 'HEAD' AND from_commit = 'HEAD~1' AND to_pk > 5;
DESCRIBE dolt_commit_diff_nope;
