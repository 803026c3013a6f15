-- dolt_log() with --decorate full, short, no and auto (a warning), the
-- =value form, and refusals.
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
SELECT message, refs FROM dolt_log('--decorate', 'full');
SELECT message, refs FROM dolt_log('--decorate', 'short');
SELECT message, refs FROM dolt_log('--decorate', 'no');
SELECT message, refs FROM dolt_log('--decorate', 'auto');
SHOW WARNINGS;
SELECT message, refs FROM dolt_log('--decorate=full');
SELECT message, refs FROM dolt_log('feat', '--decorate', 'full');
SELECT message, refs FROM dolt_log('--decorate', 'FULL');
SELECT message, refs FROM dolt_log('--decorate', 'bogus');
SELECT message, refs FROM dolt_log('--decorate');
