-- dolt_branch creating branches: at HEAD, from a start point (ancestor spec,
-- another branch, a tag, a commit hash in a variable); its result column.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
CALL dolt_commit('-Am', 'first');
CALL dolt_tag('v1');
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-am', 'second');
CALL dolt_branch('b1');
CALL dolt_branch('b2', 'HEAD~1');
CALL dolt_branch('b3', 'b2');
CALL dolt_branch('b4', 'v1');
CALL dolt_branch('b5', 'main');
SET @h = (SELECT hash FROM dolt_branches WHERE name = 'main');
CALL dolt_branch('b6', @h);
CALL dolt_branch('feature/x', 'HEAD~2');
CALL dolt_branch('b.with-dots_1');
SELECT name, latest_commit_message FROM dolt_branches ORDER BY name;
SELECT active_branch();
SELECT * FROM t AS OF 'b2';
SELECT * FROM t AS OF 'b6';
