-- dolt_revert of several commits in one call: one revert commit each, in the
-- order given, and the result row.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
CALL dolt_commit('-Am', 'first');
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-am', 'add 1');
INSERT INTO t VALUES (2, 2);
CALL dolt_commit('-am', 'add 2');
INSERT INTO t VALUES (3, 3);
CALL dolt_commit('-am', 'add 3');
CALL dolt_revert('HEAD', 'HEAD~1');
SELECT message FROM dolt_log;
SELECT * FROM t ORDER BY pk;
CALL dolt_revert('HEAD~4', 'HEAD~2');
SELECT message FROM dolt_log LIMIT 2;
SELECT * FROM t ORDER BY pk;
