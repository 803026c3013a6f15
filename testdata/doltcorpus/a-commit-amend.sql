-- dolt_commit --amend: a new message, the old message kept without -m,
-- staged changes folded in, -a with it; HEAD's parent stays the same.
CREATE TABLE t (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'first');
SET @parent = hashof('HEAD~1');
SET @first = hashof('HEAD');
CALL dolt_commit('--amend', '-m', 'first amended');
SELECT message, hashof('HEAD') = @first AS same, hashof('HEAD~1') = @parent AS same_parent FROM dolt_log LIMIT 1;
CALL dolt_commit('--amend');
SELECT message FROM dolt_log;
INSERT INTO t VALUES (1);
CALL dolt_add('t');
CALL dolt_commit('--amend');
SELECT message FROM dolt_log;
SELECT * FROM dolt_status ORDER BY table_name, staged;
INSERT INTO t VALUES (2);
CALL dolt_commit('--amend', '-a', '-m', 'with a');
SELECT message FROM dolt_log;
SELECT * FROM t AS OF 'HEAD' ORDER BY pk;
SELECT COUNT(*) FROM dolt_log;
