-- dolt_diff, dolt_diff_<table> and dolt_history_<table> around a merge
-- commit: which commits show, and what the merge commit's rows compare to.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-Am', 'base');
CALL dolt_checkout('-b', 'other');
INSERT INTO t VALUES (2, 2);
CALL dolt_commit('-am', 'on other');
CALL dolt_checkout('main');
INSERT INTO t VALUES (3, 3);
CALL dolt_commit('-am', 'on main');
CALL dolt_merge('other', '--no-ff', '-m', 'merge other');
SELECT table_name, message, data_change, schema_change FROM dolt_diff ORDER BY message, table_name;
SELECT to_pk, from_pk, diff_type, (SELECT message FROM dolt_log WHERE commit_hash = to_commit) AS to_msg, (SELECT message FROM dolt_log WHERE commit_hash = from_commit) AS from_msg FROM dolt_diff_t ORDER BY to_msg, to_pk;
SELECT pk, COUNT(*) FROM dolt_history_t GROUP BY pk ORDER BY pk;
SELECT COUNT(DISTINCT commit_hash) FROM dolt_history_t;
SELECT to_pk, diff_type FROM dolt_diff('HEAD~1', 'HEAD', 't') ORDER BY to_pk;
SELECT to_pk, diff_type FROM dolt_diff('HEAD^2', 'HEAD', 't') ORDER BY to_pk;
SELECT pk, message FROM dolt_blame_t;
SELECT table_name, column_name, diff_type FROM dolt_column_diff WHERE message = 'merge other';
