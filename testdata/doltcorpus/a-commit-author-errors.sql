-- dolt_commit --author refusals: no email, no name, empty email, no space
-- before '<', an empty value, a missing value; an unclosed '<' is taken.
CALL dolt_commit('--allow-empty', '--author', 'Jane Doe', '-m', 'no email');
CALL dolt_commit('--allow-empty', '--author', '<jane@example.com>', '-m', 'no name');
CALL dolt_commit('--allow-empty', '--author', 'Jane <>', '-m', 'empty email');
CALL dolt_commit('--allow-empty', '--author', 'Jane<jane@example.com>', '-m', 'no space');
CALL dolt_commit('--allow-empty', '--author', '', '-m', 'empty');
CALL dolt_commit('--allow-empty', '-m', 'missing', '--author');
CALL dolt_commit('--allow-empty', '--author', 'Jane Doe <jane@example.com', '-m', 'unclosed');
SELECT message, author, author_email FROM dolt_log;
