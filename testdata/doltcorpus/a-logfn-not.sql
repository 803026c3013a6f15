-- dolt_log() with --not and with ^REV: commits reachable from the first
-- revisions and not from the excluded ones.
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
SELECT message FROM dolt_log('main', '--not', 'feat');
SELECT message FROM dolt_log('main', '^feat');
SELECT message FROM dolt_log('^feat', 'main');
SELECT message FROM dolt_log('main', '--not', 'HEAD~1', 'feat');
SELECT message FROM dolt_log('main', '^HEAD~1', '^feat');
SELECT message FROM dolt_log('feat', '--not', 'main');
SELECT message FROM dolt_log('--not', 'feat');
SELECT message FROM dolt_log('main', '--not');
SELECT message FROM dolt_log('main', '--not', 'nosuch');
SELECT message FROM dolt_log('main', '^nosuch');
