-- dolt_commit_ancestors looked up by commit_hash (which its UNIQUE KEY claims
-- is unique): COUNT and rows of a merge commit, with = and LIKE.
CREATE TABLE t (pk INT PRIMARY KEY);
CREATE TABLE u (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'base', '--date', '2020-01-01T00:00:00');
CALL dolt_branch('feat');
INSERT INTO t VALUES (1);
CALL dolt_commit('-am', 'main t', '--date', '2020-01-02T00:00:00');
CALL dolt_checkout('feat');
INSERT INTO u VALUES (1);
CALL dolt_commit('-am', 'feat u', '--date', '2020-01-03T00:00:00');
CALL dolt_checkout('main');
CALL dolt_merge('feat', '-m', 'merge feat');
CALL dolt_tag('v1', 'HEAD~1');
SET @m = hashof('main');
SELECT COUNT(*) FROM dolt_commit_ancestors WHERE commit_hash = @m;
SELECT parent_index FROM dolt_commit_ancestors WHERE commit_hash = @m ORDER BY parent_index;
SELECT parent_index FROM dolt_commit_ancestors WHERE commit_hash LIKE @m ORDER BY parent_index;
SELECT parent_index FROM dolt_commit_ancestors WHERE CONCAT(commit_hash, '') = @m ORDER BY parent_index;
SELECT parent_hash = hashof('feat') FROM dolt_commit_ancestors WHERE commit_hash = hashof('feat');
