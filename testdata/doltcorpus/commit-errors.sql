-- dolt_commit's refusals: nothing to commit, no message, bad flags.
CALL dolt_commit('-m', 'nothing');
CALL dolt_commit();
CALL dolt_commit('-A');
CALL dolt_commit('--bogus', '-m', 'x');
CREATE TABLE t (pk INT PRIMARY KEY);
CALL dolt_commit('-m', 'not staged');
CALL dolt_add('t');
CALL dolt_commit('-m', 'staged');
CALL dolt_commit('--allow-empty', '-m', 'empty');
SELECT message FROM dolt_log;
