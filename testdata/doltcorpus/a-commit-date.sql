-- dolt_commit --date: the formats Dolt accepts (date, date and time,
-- fractions, zone suffixes, dots); date and author_date both take it.
CALL dolt_commit('--allow-empty', '--date', '2020-01-02T03:04:05', '-m', 'iso');
CALL dolt_commit('--allow-empty', '--date', '2020-01-03', '-m', 'day');
CALL dolt_commit('--allow-empty', '--date', '2020-01-04T03:04:05.678', '-m', 'fraction');
CALL dolt_commit('--allow-empty', '--date', '2020-01-05T03:04:05Z', '-m', 'zulu');
CALL dolt_commit('--allow-empty', '--date', '2020-01-06T03:04:05+02:00', '-m', 'offset');
CALL dolt_commit('--allow-empty', '--date', '2020.01.07', '-m', 'dots');
CALL dolt_commit('--allow-empty', '--date=2020-01-08', '-m', 'equals');
SELECT message, date, author_date FROM dolt_log WHERE message <> 'Initialize data repository';
SELECT message FROM dolt_log WHERE date < '2020-01-04';
