-- Conflicts where one side deletes a row the other modifies, both ways: the
-- diff types in dolt_conflicts_t and the resolution.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1), (2, 2);
CALL dolt_commit('-Am', 'first');
CALL dolt_checkout('-b', 'feature');
DELETE FROM t WHERE pk = 1;
UPDATE t SET v = 20 WHERE pk = 2;
CALL dolt_commit('-am', 'f1');
CALL dolt_checkout('main');
UPDATE t SET v = 10 WHERE pk = 1;
DELETE FROM t WHERE pk = 2;
CALL dolt_commit('-am', 'm1');
SET @@dolt_allow_commit_conflicts = 1;
CALL dolt_merge('feature');
SELECT * FROM dolt_conflicts;
SELECT base_pk, base_v, our_pk, our_v, our_diff_type, their_pk, their_v, their_diff_type FROM dolt_conflicts_t ORDER BY base_pk;
SELECT * FROM t ORDER BY pk;
CALL dolt_conflicts_resolve('--theirs', 't');
SELECT * FROM t ORDER BY pk;
CALL dolt_commit('-m', 'merged');
SELECT * FROM dolt_status;
