-- dolt_preview_merge_conflicts: the conflict rows of one table a merge would
-- give, with the same columns as dolt_conflicts_t, without merging.
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
SELECT from_root_ish, base_pk, base_v, our_pk, our_v, our_diff_type, their_pk, their_v, their_diff_type FROM dolt_preview_merge_conflicts('main', 'feature', 't') ORDER BY our_pk;
SELECT our_pk, our_v, their_v FROM dolt_preview_merge_conflicts('feature', 'main', 't') ORDER BY our_pk;
SELECT COUNT(*) FROM dolt_preview_merge_conflicts('main', 'main', 't');
SELECT COUNT(DISTINCT dolt_conflict_id) FROM dolt_preview_merge_conflicts('main', 'feature', 't');
SELECT * FROM dolt_conflicts;
SET @@dolt_allow_commit_conflicts = 1;
CALL dolt_merge('feature');
SELECT p.our_pk, p.their_v = c.their_v AS same_theirs FROM dolt_preview_merge_conflicts('main', 'feature', 't') p JOIN dolt_conflicts_t c ON p.our_pk = c.our_pk ORDER BY p.our_pk;
