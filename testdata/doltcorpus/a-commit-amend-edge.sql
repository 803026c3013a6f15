-- dolt_commit --amend at the edges: the repository's first commit, with
-- --allow-empty, --skip-empty and --author, and a merge commit (two parents kept).
CALL dolt_commit('--amend', '-m', 'initial amended');
SELECT message, parents FROM dolt_log;
CALL dolt_commit('--allow-empty', '-m', 'second');
CALL dolt_commit('--amend', '--allow-empty', '-m', 'second, allow-empty');
CALL dolt_commit('--amend', '--skip-empty', '-m', 'second, skip-empty');
SELECT message FROM dolt_log;
CALL dolt_commit('--amend', '--author', 'A B <a@b.c>', '-m', 'second, authored');
SELECT message, committer, email, author, author_email FROM dolt_log;
CALL dolt_branch('side');
CALL dolt_checkout('side');
CALL dolt_commit('--allow-empty', '-m', 'on side', '--date', '2020-01-01T00:00:00');
CALL dolt_checkout('main');
CALL dolt_merge('--no-ff', 'side', '-m', 'merge side');
CALL dolt_commit('--amend', '-m', 'merge amended');
SELECT message, parents LIKE '%, %' AS two_parents FROM dolt_log LIMIT 1;
SELECT COUNT(*) FROM dolt_commit_ancestors WHERE parent_index = 1;
