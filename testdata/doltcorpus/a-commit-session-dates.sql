-- The session variables @@dolt_author_date and @@dolt_committer_date, what
-- --date does beside them, and a value Dolt cannot read.
SET @@dolt_author_date = '2020-05-05T00:00:00';
CALL dolt_commit('--allow-empty', '-m', 'author date');
SET @@dolt_committer_date = '2020-06-06T00:00:00';
CALL dolt_commit('--allow-empty', '-m', 'both dates');
CALL dolt_commit('--allow-empty', '-m', 'flag date', '--date', '2020-07-07');
SET @@dolt_author_date = '';
CALL dolt_commit('--allow-empty', '-m', 'committer date only');
SET @@dolt_committer_date = 'garbage';
CALL dolt_commit('--allow-empty', '-m', 'bad date var');
SET @@dolt_committer_date = '';
SELECT message, date, author_date FROM dolt_log WHERE message <> 'Initialize data repository';
