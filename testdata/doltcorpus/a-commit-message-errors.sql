-- dolt_commit's message refusals: none given, -m without a value, empty or
-- NULL, -m twice, a positional argument.
CALL dolt_commit('--allow-empty');
CALL dolt_commit('--allow-empty', '-m');
CALL dolt_commit('--allow-empty', '-m', '');
CALL dolt_commit('--allow-empty', '-m', NULL);
CALL dolt_commit('--allow-empty', '-m', 'one', '-m', 'two');
CALL dolt_commit('--allow-empty', '-m', 'x', 'extra');
CALL dolt_commit('--allow-empty', 'just text');
CALL dolt_commit('--allow-empty', '--message');
SELECT COUNT(*) FROM dolt_log;
