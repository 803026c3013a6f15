-- The dirty column of dolt_branches: set by unstaged or staged changes on a
-- branch's working set, per branch, cleared by a commit.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
CALL dolt_commit('-Am', 'first');
CALL dolt_branch('feature');
SELECT name, dirty FROM dolt_branches ORDER BY name;
INSERT INTO t VALUES (1, 1);
SELECT name, dirty FROM dolt_branches ORDER BY name;
CALL dolt_add('t');
SELECT name, dirty FROM dolt_branches ORDER BY name;
CALL dolt_checkout('feature');
SELECT name, dirty FROM dolt_branches ORDER BY name;
CREATE TABLE u (pk INT PRIMARY KEY);
SELECT name, dirty FROM dolt_branches ORDER BY name;
CALL dolt_checkout('main');
CALL dolt_commit('-m', 'second');
SELECT name, dirty, latest_commit_message FROM dolt_branches ORDER BY name;
