-- dolt_commit --allow-empty: a commit with nothing staged, one after
-- another, leaving unstaged changes alone; with staged changes it commits them.
CALL dolt_commit('--allow-empty', '-m', 'empty one');
SET @root = dolt_hashof_db('HEAD');
CALL dolt_commit('--allow-empty', '-m', 'empty two');
SELECT dolt_hashof_db('HEAD') = @root AS same_root;
SELECT message, parents = hashof('HEAD~1') FROM dolt_log LIMIT 1;
CREATE TABLE t (pk INT PRIMARY KEY);
CALL dolt_commit('--allow-empty', '-m', 'unstaged stays');
SELECT * FROM dolt_status ORDER BY table_name, staged;
SHOW TABLES;
CALL dolt_add('t');
CALL dolt_commit('--allow-empty', '-m', 'with staged');
SELECT * FROM dolt_status ORDER BY table_name, staged;
SELECT message FROM dolt_log;
SELECT dolt_hashof_db('HEAD') = @root AS same_root;
