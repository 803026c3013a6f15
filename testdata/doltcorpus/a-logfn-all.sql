-- dolt_log() with --all: what it lists when another branch holds commits
-- that HEAD cannot reach, alone and beside other revisions.
CREATE TABLE t (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'base', '--date', '2020-01-01T00:00:00');
CALL dolt_checkout('-b', 'side');
INSERT INTO t VALUES (1);
CALL dolt_commit('-am', 'side only', '--date', '2020-02-02T00:00:00');
CALL dolt_checkout('main');
INSERT INTO t VALUES (2);
CALL dolt_commit('-am', 'main only', '--date', '2020-02-01T00:00:00');
SELECT message, refs FROM dolt_log('--all');
SELECT message, refs FROM dolt_log('--all', 'main');
SELECT message FROM dolt_log('--all', 'side');
SELECT message FROM dolt_log('--all', '--not', 'side');
SELECT message FROM dolt_log('main', 'side');
