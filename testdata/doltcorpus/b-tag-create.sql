-- dolt_tag creating tags: at HEAD, on a revision (ancestor spec, branch,
-- commit hash), with -m/--message before or after the names.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
CALL dolt_commit('-Am', 'first');
CALL dolt_branch('feature');
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-am', 'second');
CALL dolt_tag('v1');
CALL dolt_tag('v0', 'HEAD~1');
CALL dolt_tag('vf', 'feature');
CALL dolt_tag('-m', 'release two', 'v2');
CALL dolt_tag('v3', 'main', '-m', 'on main');
CALL dolt_tag('--message', 'long flag', 'v4', 'HEAD~2');
SET @h = (SELECT hash FROM dolt_branches WHERE name = 'feature');
CALL dolt_tag('vh', @h);
SELECT t.tag_name, t.message, l.message AS commit_message FROM dolt_tags t JOIN dolt_log l ON t.tag_hash = l.commit_hash ORDER BY t.tag_name;
SELECT tag_name FROM dolt_tags WHERE tag_hash = @h ORDER BY tag_name;
SELECT * FROM t AS OF 'v0';
SELECT * FROM t AS OF 'v1';
