-- dolt_reset to a commit without --soft or --hard: the branch moves, the
-- changes stay unstaged; a commit hash (from a variable) with --hard.
CREATE TABLE t (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'one');
INSERT INTO t VALUES (1);
CALL dolt_commit('-am', 'two');
INSERT INTO t VALUES (2);
CALL dolt_commit('-am', 'three');
CALL dolt_reset('HEAD~1');
SELECT message FROM dolt_log;
SELECT * FROM dolt_status ORDER BY table_name, staged;
SELECT * FROM t ORDER BY pk;
CALL dolt_commit('-am', 'three again');
SET @one = (SELECT commit_hash FROM dolt_log WHERE message = 'one');
CALL dolt_reset(@one);
SELECT message FROM dolt_log;
SELECT * FROM dolt_status ORDER BY table_name, staged;
CALL dolt_reset('--hard', @one);
SELECT * FROM t;
SELECT hashof('HEAD') = @one;
