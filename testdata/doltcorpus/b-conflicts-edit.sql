-- Resolving conflicts by hand: editing t, then deleting rows of
-- dolt_conflicts_t; updating dolt_conflicts_t; committing afterwards.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1), (2, 2);
CALL dolt_commit('-Am', 'first');
CALL dolt_checkout('-b', 'feature');
UPDATE t SET v = 10 WHERE pk = 1;
INSERT INTO t VALUES (3, 30);
CALL dolt_commit('-am', 'f1');
CALL dolt_checkout('main');
UPDATE t SET v = 100 WHERE pk = 1;
INSERT INTO t VALUES (3, 300);
CALL dolt_commit('-am', 'm1');
SET @@dolt_allow_commit_conflicts = 1;
CALL dolt_merge('feature');
UPDATE t SET v = 555 WHERE pk = 1;
DELETE FROM dolt_conflicts_t WHERE our_pk = 1;
SELECT * FROM dolt_conflicts;
SELECT our_pk, our_v, their_v FROM dolt_conflicts_t;
UPDATE dolt_conflicts_t SET our_v = 333 WHERE our_pk = 3;
SELECT * FROM t ORDER BY pk;
SELECT our_pk, our_v, their_v FROM dolt_conflicts_t;
DELETE FROM dolt_conflicts_t;
SELECT * FROM dolt_conflicts;
SELECT * FROM dolt_status;
CALL dolt_commit('-am', 'merged by hand');
SELECT * FROM t ORDER BY pk;
SELECT message FROM dolt_log LIMIT 1;
