-- dolt_revert's refusals: no argument, unknown revisions, unknown flags,
-- uncommitted changes, reverting a table's creation, the first commit.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
CALL dolt_commit('-Am', 'first');
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-am', 'add 1');
CALL dolt_revert();
CALL dolt_revert('nosuch');
CALL dolt_revert('');
CALL dolt_revert('HEAD~9');
CALL dolt_revert('--bogus', 'HEAD');
INSERT INTO t VALUES (9, 9);
CALL dolt_revert('HEAD');
CALL dolt_reset('--hard');
CALL dolt_revert('HEAD~1');
CALL dolt_revert('HEAD~2');
CALL dolt_revert('HEAD', 'nosuch');
SELECT message FROM dolt_log;
SELECT * FROM t ORDER BY pk;
