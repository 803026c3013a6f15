-- dolt_cherry_pick's refusals: unknown revisions, no or empty argument,
-- several commits, unknown flags, HEAD itself, uncommitted changes, --abort
-- with nothing to abort.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
CALL dolt_commit('-Am', 'first');
CALL dolt_checkout('-b', 'feature');
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-am', 'f1');
INSERT INTO t VALUES (2, 2);
CALL dolt_commit('-am', 'f2');
CALL dolt_checkout('main');
CALL dolt_cherry_pick('nosuch');
CALL dolt_cherry_pick();
CALL dolt_cherry_pick('');
CALL dolt_cherry_pick('feature', 'feature~1');
CALL dolt_cherry_pick('--bogus', 'feature');
CALL dolt_cherry_pick('HEAD');
CALL dolt_cherry_pick('HEAD~5');
CALL dolt_cherry_pick('--abort');
INSERT INTO t VALUES (9, 9);
CALL dolt_cherry_pick('feature~1');
SELECT message FROM dolt_log;
SELECT * FROM t ORDER BY pk;
