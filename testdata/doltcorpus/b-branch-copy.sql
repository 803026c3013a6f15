-- dolt_branch -c/--copy: copying a branch, onto an existing name with and
-- without -f, from unknown branches, with bad names or missing arguments.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
CALL dolt_commit('-Am', 'first');
CALL dolt_branch('b1');
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-am', 'second');
CALL dolt_branch('-c', 'b1', 'b2');
CALL dolt_branch('--copy', 'main', 'b3');
CALL dolt_branch('-c', 'main', 'b2');
CALL dolt_branch('-c', '-f', 'main', 'b2');
CALL dolt_branch('-c', 'nosuch', 'b9');
CALL dolt_branch('-c', 'b1');
CALL dolt_branch('-c');
CALL dolt_branch('-c', 'b1', 'bad name');
CALL dolt_branch('-c', 'b1', 'b1');
SELECT name, latest_commit_message FROM dolt_branches ORDER BY name;
SELECT active_branch();
