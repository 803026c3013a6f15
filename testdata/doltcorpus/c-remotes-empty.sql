-- dolt_remotes and dolt_remote_branches in a database without remotes:
-- DESCRIBE, empty SELECTs, and writes they refuse.
DESCRIBE dolt_remotes;
DESCRIBE dolt_remote_branches;
SELECT * FROM dolt_remotes;
SELECT * FROM dolt_remote_branches;
CREATE TABLE t (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'first');
CALL dolt_branch('b1');
SELECT * FROM dolt_remote_branches;
SELECT COUNT(*) FROM dolt_remotes;
INSERT INTO dolt_remotes VALUES ('origin', 'https://example.com/x', NULL, NULL);
DELETE FROM dolt_remote_branches;
SHOW CREATE TABLE dolt_remotes;
SELECT * FROM dolt_status;
