-- The dolt_log system table over a merge: every column, two parents on the
-- merge commit, commit_order shared by the two sides, refs.
SHOW CREATE TABLE dolt_log;
CREATE TABLE t (pk INT PRIMARY KEY);
CREATE TABLE u (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'base', '--date', '2020-01-01T00:00:00');
CALL dolt_branch('feat');
INSERT INTO t VALUES (1);
CALL dolt_commit('-am', 'main t', '--date', '2020-01-02T00:00:00');
CALL dolt_checkout('feat');
INSERT INTO u VALUES (1);
CALL dolt_commit('-am', 'feat u', '--date', '2020-01-03T00:00:00');
CALL dolt_checkout('main');
CALL dolt_merge('feat', '-m', 'merge feat');
CALL dolt_tag('v1', 'HEAD~1');
SELECT * FROM dolt_log;
SELECT message, commit_order, parents = CONCAT(hashof('HEAD~1'), ', ', hashof('feat')) AS both_parents FROM dolt_log LIMIT 1;
SELECT message FROM dolt_log WHERE parents LIKE '%,%';
SELECT commit_order, COUNT(*) FROM dolt_log GROUP BY commit_order ORDER BY commit_order;
