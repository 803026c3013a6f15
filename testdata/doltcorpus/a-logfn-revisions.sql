-- The dolt_log() table function: its columns (parents NULL without
-- --parents), no revision, a branch, a tag, HEAD~n, HEAD^2, a hash, several.
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
SELECT * FROM dolt_log();
SELECT message, refs FROM dolt_log('feat');
SELECT message FROM dolt_log('v1');
SELECT message FROM dolt_log('HEAD~2');
SELECT message FROM dolt_log('HEAD^2');
SET @base = (SELECT commit_hash FROM dolt_log WHERE message = 'base');
SELECT message FROM dolt_log(@base);
SELECT message FROM dolt_log('v1', 'feat');
SELECT message FROM dolt_log('MAIN');
SELECT COUNT(*) FROM dolt_log('main') WHERE parents IS NULL;
