-- The dolt_commits system table: its columns, commits of every branch
-- (not only HEAD's), and what happens to them when a branch is deleted.
DESCRIBE dolt_commits;
SHOW CREATE TABLE dolt_commits;
CREATE TABLE t (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'base', '--date', '2020-01-01T00:00:00');
CALL dolt_checkout('-b', 'side');
CALL dolt_commit('--allow-empty', '-m', 'side only', '--date', '2020-01-02T00:00:00', '--author', 'Sid <sid@example.com>');
CALL dolt_checkout('main');
SELECT * FROM dolt_commits ORDER BY message;
SELECT COUNT(*) FROM dolt_commits;
SELECT COUNT(*) FROM dolt_log;
SELECT message FROM dolt_commits WHERE commit_hash = hashof('side');
SELECT message FROM dolt_commits AS OF 'side' ORDER BY message;
CALL dolt_branch('-D', 'side');
SELECT message FROM dolt_commits ORDER BY message;
