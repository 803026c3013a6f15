-- dolt_commit --author 'Name <email>': it sets author and committer alike;
-- the --author=value form; spaces around name and email as Dolt keeps them.
CALL dolt_commit('--allow-empty', '--author', 'Jane Doe <jane@example.com>', '-m', 'by jane');
CALL dolt_commit('--allow-empty', '--author=Eq Name <eq@example.com>', '-m', 'equals form');
CALL dolt_commit('--allow-empty', '--author', '  Spaced   <  sp@example.com >', '-m', 'spaces');
CALL dolt_commit('--allow-empty', '-m', 'no author');
SELECT message, committer, email, author, author_email FROM dolt_log;
SELECT COUNT(*) FROM dolt_commits WHERE author = 'Jane Doe';
