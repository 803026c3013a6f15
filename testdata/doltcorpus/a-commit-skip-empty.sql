-- dolt_commit --skip-empty: no commit and an empty result when nothing is
-- staged; a commit when something is; refused together with --allow-empty.
CALL dolt_commit('--skip-empty', '-m', 'nothing');
SELECT COUNT(*) FROM dolt_log;
CREATE TABLE t (pk INT PRIMARY KEY);
CALL dolt_commit('--skip-empty', '-m', 'unstaged only');
CALL dolt_commit('--skip-empty', '-Am', 'staged by A');
CALL dolt_commit('--skip-empty', '-am', 'clean again');
CALL dolt_commit('--allow-empty', '--skip-empty', '-m', 'both');
CALL dolt_commit('--skip-empty', '--allow-empty', '-m', 'both');
SELECT message FROM dolt_log;
