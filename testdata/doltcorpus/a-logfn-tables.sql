-- dolt_log() with --tables / -t: commits that changed one table or any of
-- several (comma-separated or as more arguments), a merge, unknown tables.
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
CREATE TABLE w (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'add w', '--date', '2020-01-05T00:00:00');
SELECT message FROM dolt_log('--tables', 't');
SELECT message FROM dolt_log('--tables', 'u');
SELECT message FROM dolt_log('--tables', 'w');
SELECT message FROM dolt_log('--tables', 't,u');
SELECT message FROM dolt_log('--tables', 't', 'w');
SELECT message FROM dolt_log('-t', 'u');
SELECT message FROM dolt_log('feat', '--tables', 't');
SELECT message FROM dolt_log('--tables', 'nosuch');
SELECT message FROM dolt_log('--tables', 'T');
SELECT message FROM dolt_log('--tables', 't', '--tables', 'u');
SELECT message FROM dolt_log('--tables');
