-- DESCRIBE of dolt_branch_activity (off by default) and
-- dolt_commit_ancestors, and what they return here.
DESCRIBE dolt_branch_activity;
SELECT * FROM dolt_branch_activity;
DESCRIBE dolt_commit_ancestors;
SELECT * FROM dolt_commit_ancestors;
CREATE TABLE t (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'first');
SELECT commit_hash = (SELECT commit_hash FROM dolt_log WHERE message = 'first') AS is_first, parent_index FROM dolt_commit_ancestors WHERE parent_hash IS NOT NULL;
SELECT COUNT(*) FROM dolt_commit_ancestors WHERE parent_hash IS NULL;
