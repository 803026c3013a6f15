-- dolt_branch -m/--move: renaming branches, onto existing names with and
-- without -f, unknown branches, bad names, renaming the default branch.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
CALL dolt_commit('-Am', 'first');
CALL dolt_branch('b1');
CALL dolt_branch('b2');
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-am', 'second');
CALL dolt_branch('-m', 'b1', 'b3');
CALL dolt_branch('--move', 'b3', 'b4');
CALL dolt_branch('-m', 'b4', 'b2');
CALL dolt_branch('-m', '-f', 'b4', 'b2');
CALL dolt_branch('-m', 'nosuch', 'b9');
CALL dolt_branch('-m', 'b2');
CALL dolt_branch('-m', 'b2', 'bad name');
CALL dolt_branch('-m', 'main', 'trunk');
SELECT name, latest_commit_message FROM dolt_branches ORDER BY name;
SELECT active_branch();
