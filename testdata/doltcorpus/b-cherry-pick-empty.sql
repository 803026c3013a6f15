-- dolt_cherry_pick of an empty commit (refused without --allow-empty) and of a
-- commit whose changes are already there.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
CALL dolt_commit('-Am', 'first');
CALL dolt_checkout('-b', 'feature');
CALL dolt_commit('--allow-empty', '-m', 'empty');
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-am', 'f1');
CALL dolt_checkout('main');
CALL dolt_cherry_pick('feature~1');
CALL dolt_cherry_pick('--allow-empty', 'feature~1');
SELECT message FROM dolt_log;
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-am', 'same change');
CALL dolt_cherry_pick('feature');
CALL dolt_cherry_pick('--allow-empty', 'feature');
SELECT message FROM dolt_log;
