-- dolt_log() with --merges and --min-parents N: only commits with at least
-- that many parents; bad values.
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
SELECT message FROM dolt_log('--merges');
SELECT message FROM dolt_log('--min-parents', '2');
SELECT message FROM dolt_log('--min-parents', '1');
SELECT message FROM dolt_log('--min-parents', '0');
SELECT message FROM dolt_log('--min-parents', '3');
SELECT message FROM dolt_log('--min-parents', '-1');
SELECT message FROM dolt_log('--merges', '--min-parents', '1');
SELECT message FROM dolt_log('feat', '--merges');
SELECT message FROM dolt_log('--min-parents', 'x');
SELECT message FROM dolt_log('--min-parents');
