-- dolt_log() with ranges on diverged branches: 'a..b' (in b, not in a) and
-- 'a...b' (in either, not in both), either way round, with HEAD~n and hashes.
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
INSERT INTO t VALUES (2);
CALL dolt_commit('-am', 'main t2', '--date', '2020-01-04T00:00:00');
SELECT message FROM dolt_log('main..feat');
SELECT message FROM dolt_log('feat..main');
SELECT message FROM dolt_log('main...feat');
SELECT message FROM dolt_log('feat...main');
SELECT message FROM dolt_log('HEAD~1..main');
SELECT message FROM dolt_log('main..main');
SELECT message FROM dolt_log('HEAD~2...feat');
SET @range = CONCAT(hashof('feat'), '..', hashof('main'));
SELECT message FROM dolt_log(@range);
SELECT message FROM dolt_log('feat..');
