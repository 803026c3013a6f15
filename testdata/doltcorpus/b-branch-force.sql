-- dolt_branch -f/--force: moving an existing branch to another start point,
-- including the checked-out branch itself.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
CALL dolt_commit('-Am', 'first');
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-am', 'second');
CALL dolt_branch('b1', 'HEAD~1');
CALL dolt_branch('b1', 'HEAD');
CALL dolt_branch('-f', 'b1', 'HEAD');
SELECT name, latest_commit_message FROM dolt_branches ORDER BY name;
CALL dolt_branch('--force', 'b1', 'HEAD~2');
SELECT name, latest_commit_message FROM dolt_branches ORDER BY name;
CALL dolt_branch('-f', 'b2');
CALL dolt_branch('-f', 'b1', 'nosuch');
CALL dolt_branch('-f', 'main', 'HEAD~1');
SELECT message FROM dolt_log;
SELECT * FROM t;
SELECT active_branch();
