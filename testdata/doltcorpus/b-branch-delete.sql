-- dolt_branch -d/-D/--delete: merged and unmerged branches, -f, several at
-- once, unknown branches, the checked-out branch and the default branch.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
CALL dolt_commit('-Am', 'first');
CALL dolt_branch('merged');
CALL dolt_branch('unmerged');
CALL dolt_branch('other');
CALL dolt_branch('b4');
CALL dolt_branch('b5');
CALL dolt_checkout('unmerged');
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-am', 'on unmerged');
CALL dolt_checkout('main');
CALL dolt_branch('-d', 'merged');
CALL dolt_branch('-d', 'merged');
CALL dolt_branch('-d', 'unmerged');
CALL dolt_branch('-d', '-f', 'unmerged');
CALL dolt_branch('-D', 'other');
CALL dolt_branch('--delete', 'b4', 'b5');
CALL dolt_branch('-d', 'nosuch');
CALL dolt_branch('-d');
CALL dolt_branch('-d', 'main');
CALL dolt_branch('-D', 'main');
SELECT name FROM dolt_branches ORDER BY name;
CALL dolt_checkout('-b', 'current');
CALL dolt_branch('-d', 'current');
CALL dolt_branch('-D', 'current');
SELECT name FROM dolt_branches ORDER BY name;
