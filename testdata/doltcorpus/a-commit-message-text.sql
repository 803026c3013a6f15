-- dolt_commit messages kept as given: quotes, an escaped newline, non-ASCII
-- text, only spaces, and values that look like flags.
CALL dolt_commit('--allow-empty', '-m', "it's \"quoted\"");
CALL dolt_commit('--allow-empty', '-m', 'line1\nline2');
CALL dolt_commit('--allow-empty', '-m', 'ünïcødé ✓');
CALL dolt_commit('--allow-empty', '-m', '   ');
CALL dolt_commit('--allow-empty', '-m', '-m');
CALL dolt_commit('--allow-empty', '-m', '--amend');
SELECT message, LENGTH(message) FROM dolt_log;
SELECT COUNT(*) FROM dolt_log WHERE message LIKE '%\n%';
