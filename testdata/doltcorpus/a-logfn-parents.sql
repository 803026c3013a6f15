-- dolt_log() with --parents: the parents column filled, two hashes joined
-- by ', ' on a merge, empty on the first commit.
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
SELECT message, parents FROM dolt_log('--parents');
SELECT message, parents FROM dolt_log('feat', '--parents');
SELECT message, parents = CONCAT(hashof('HEAD~1'), ', ', hashof('feat')) FROM dolt_log('--parents') WHERE message = 'merge feat';
SELECT message, parents IS NULL FROM dolt_log() WHERE message = 'merge feat';
SELECT COUNT(*) FROM dolt_log('--parents') WHERE parents = '';
