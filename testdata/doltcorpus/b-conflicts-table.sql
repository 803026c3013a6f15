-- The dolt_conflicts and dolt_conflicts_t tables: columns (DESCRIBE), rows of
-- a modified/modified and an added/added conflict.
DESCRIBE dolt_conflicts;
SELECT * FROM dolt_conflicts;
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
SELECT * FROM dolt_conflicts;
DESCRIBE dolt_conflicts_t;
SELECT from_root_ish, base_pk, base_v, our_pk, our_v, our_diff_type, their_pk, their_v, their_diff_type FROM dolt_conflicts_t ORDER BY our_pk;
SELECT from_root_ish = (SELECT hash FROM dolt_branches WHERE name = 'feature') AS from_feature FROM dolt_conflicts_t ORDER BY our_pk;
SELECT COUNT(DISTINCT dolt_conflict_id) FROM dolt_conflicts_t;
SELECT * FROM dolt_conflicts_nosuch;
