-- hashof(): branches, tags, HEAD, HEAD~n, HEAD^ and HEAD^2, a hash, and
-- case; compared with dolt_log's hashes.
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
SELECT hashof('HEAD'), hashof('main'), hashof('HEAD~1'), hashof('HEAD^'), hashof('HEAD^2'), hashof('feat'), hashof('v1'), hashof('main~2');
SELECT hashof('main') = (SELECT commit_hash FROM dolt_log LIMIT 1);
SELECT hashof('HEAD~1') = (SELECT commit_hash FROM dolt_log WHERE message = 'main t');
SELECT hashof('MAIN') = hashof('main');
SELECT hashof(hashof('feat')) = hashof('feat');
SELECT hashof(NULL);
