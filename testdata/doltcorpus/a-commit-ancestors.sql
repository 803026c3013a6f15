-- The dolt_commit_ancestors system table: its columns and keys, one row per
-- parent with parent_index 0 and 1 on a merge, a NULL parent for the first commit.
DESCRIBE dolt_commit_ancestors;
SHOW CREATE TABLE dolt_commit_ancestors;
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
SELECT c.message, p.message AS parent, a.parent_index FROM dolt_commit_ancestors a JOIN dolt_commits c ON c.commit_hash = a.commit_hash JOIN dolt_commits p ON p.commit_hash = a.parent_hash ORDER BY c.message, a.parent_index;
SELECT c.message, a.parent_hash, a.parent_index FROM dolt_commit_ancestors a JOIN dolt_commits c ON c.commit_hash = a.commit_hash WHERE a.parent_hash IS NULL;
SELECT COUNT(*) FROM dolt_commit_ancestors;
SELECT parent_index, COUNT(*) FROM dolt_commit_ancestors GROUP BY parent_index ORDER BY parent_index;
