-- dolt_count_commits('--from', a, '--to', b): its ahead/behind columns for
-- diverged and merged branches, short flags, and refusals.
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
CALL dolt_count_commits('--from', 'main', '--to', 'feat');
CALL dolt_count_commits('--from', 'feat', '--to', 'main');
CALL dolt_merge('feat', '-m', 'merge feat');
CALL dolt_tag('v1', 'HEAD~1');
CALL dolt_count_commits('--from', 'main~1', '--to', 'feat');
CALL dolt_count_commits('--from', 'feat', '--to', 'main');
CALL dolt_count_commits('--from', 'main', '--to', 'main');
CALL dolt_count_commits('-f', 'main', '-t', 'feat');
CALL dolt_count_commits('--from', 'main');
CALL dolt_count_commits('--to', 'main');
CALL dolt_count_commits();
CALL dolt_count_commits('--from', 'nosuch', '--to', 'main');
CALL dolt_count_commits('--from', 'main', '--to', 'nosuch');
CALL dolt_count_commits('--bogus');
