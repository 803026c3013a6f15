-- The dolt_branches system table: its columns (DESCRIBE, SHOW CREATE TABLE)
-- and its rows after creating branches at different commits.
DESCRIBE dolt_branches;
SHOW CREATE TABLE dolt_branches;
SELECT * FROM dolt_branches;
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
CALL dolt_commit('-Am', 'first');
CALL dolt_branch('feature');
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-am', 'second');
CALL dolt_branch('zeta');
SELECT * FROM dolt_branches ORDER BY name;
SELECT name, hash = (SELECT hash FROM dolt_branches WHERE name = 'main') AS at_main FROM dolt_branches ORDER BY name;
SELECT COUNT(*) FROM dolt_branches;
SELECT name FROM dolt_branches WHERE latest_commit_message = 'first';
