-- dolt_commit's option parser: unknown options, '=value' on a boolean flag,
-- upper case, a triple dash, a lone dash and '--', and -f/--force accepted.
CALL dolt_commit('--bogus', '-m', 'x');
CALL dolt_commit('-e', '--allow-empty', '-m', 'x');
CALL dolt_commit('--allow-empty=true', '-m', 'x');
CALL dolt_commit('--ALLOW-EMPTY', '-m', 'x');
CALL dolt_commit('---m', 'x');
CALL dolt_commit('-', 'x');
CALL dolt_commit('--', '-m', 'x');
CALL dolt_commit('-f', '--allow-empty', '-m', 'force');
CALL dolt_commit('--force', '--allow-empty', '-m', 'long force');
CALL dolt_commit('--help');
SELECT message FROM dolt_log;
