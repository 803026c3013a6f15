-- hashof()'s refusals: unknown names, ancestors past the first commit, '',
-- full ref names, a hash of no commit, the wrong number of arguments.
CALL dolt_commit('--allow-empty', '-m', 'second');
SELECT hashof('nosuch');
SELECT hashof('HEAD~10');
SELECT hashof('');
SELECT hashof('refs/heads/main');
SELECT hashof('heads/main');
SELECT hashof('0123456789abcdefghijklmnopqrstuv');
SELECT hashof();
SELECT hashof('main', 'main');
SELECT hashof('HEAD^3');
