-- The session variables @@dolt_author_name/_email and
-- @@dolt_committer_name/_email: commits take them; empty ones fall back.
SELECT @@dolt_author_name, @@dolt_author_email, @@dolt_committer_name, @@dolt_committer_email;
SET @@dolt_author_name = 'Ann';
SET @@dolt_author_email = 'ann@example.com';
CALL dolt_commit('--allow-empty', '-m', 'author vars');
SET @@dolt_committer_name = 'Com';
SET @@dolt_committer_email = 'com@example.com';
CALL dolt_commit('--allow-empty', '-m', 'committer vars');
CALL dolt_commit('--allow-empty', '-m', 'flag', '--author', 'Flag <flag@example.com>');
SELECT @@dolt_author_name, @@global.dolt_author_name;
SET @@dolt_author_name = '';
SET @@dolt_author_email = '';
SET @@dolt_committer_name = '';
SET @@dolt_committer_email = '';
CALL dolt_commit('--allow-empty', '-m', 'vars emptied');
SELECT message, committer, email, author, author_email FROM dolt_log;
