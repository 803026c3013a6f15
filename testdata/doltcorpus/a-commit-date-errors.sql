-- dolt_commit --date refusals: a space instead of T, words, impossible
-- dates, other orders, an empty or missing value.
CALL dolt_commit('--allow-empty', '--date', '2020-01-02 03:04:05', '-m', 'space');
CALL dolt_commit('--allow-empty', '--date', 'yesterday', '-m', 'word');
CALL dolt_commit('--allow-empty', '--date', '2020-13-45', '-m', 'impossible');
CALL dolt_commit('--allow-empty', '--date', '01/02/2020', '-m', 'slashes');
CALL dolt_commit('--allow-empty', '--date', '', '-m', 'empty');
CALL dolt_commit('--allow-empty', '-m', 'missing', '--date');
CALL dolt_commit('--allow-empty', '--date', '2020-01-02T25:00:00', '-m', 'hour 25');
SELECT COUNT(*) FROM dolt_log;
