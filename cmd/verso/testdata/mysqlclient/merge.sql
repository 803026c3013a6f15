-- merge.sql: dolt_merge, its conflicts and their resolution through the
-- mysql client. Commits are dated so that their hashes are the same on
-- every run.
CREATE TABLE t (pk INT PRIMARY KEY, a INT, b VARCHAR(10), UNIQUE KEY ub (b));
INSERT INTO t VALUES (1, 10, 'x'), (2, 20, 'y'), (3, 30, 'z');
CALL dolt_commit('-Am', 'base', '--date', '2026-01-01T00:00:00Z');
CALL dolt_branch('feature');
CALL dolt_checkout('feature');
UPDATE t SET a = 12 WHERE pk = 1;
UPDATE t SET b = 'yy' WHERE pk = 2;
DELETE FROM t WHERE pk = 3;
CALL dolt_commit('-am', 'on feature', '--date', '2026-01-01T00:01:00Z');
CALL dolt_checkout('main');
UPDATE t SET a = 11 WHERE pk = 1;
UPDATE t SET a = 21 WHERE pk = 2;
UPDATE t SET a = 31 WHERE pk = 3;
CALL dolt_commit('-am', 'on main', '--date', '2026-01-01T00:02:00Z');

-- Diverged: no fast-forward; the merge leaves conflicts (which an
-- autocommit merge may leave only when they are allowed).
SET @@dolt_allow_commit_conflicts = 1;
CALL dolt_merge('--ff-only', 'feature');
CALL dolt_merge('feature');
SELECT * FROM dolt_conflicts;
SELECT base_pk, base_a, our_a, our_diff_type, their_a, their_diff_type FROM dolt_conflicts_t ORDER BY base_pk;
SELECT is_merging, source, target, unmerged_tables FROM dolt_merge_status;
SELECT * FROM t ORDER BY pk;
SELECT * FROM dolt_status ORDER BY status;
CALL dolt_commit('-Am', 'too early');
CALL dolt_merge('feature');

-- Abort, merge again, resolve: row 1 with theirs, row 3 by hand.
CALL dolt_merge('--abort');
SELECT * FROM t ORDER BY pk;
CALL dolt_merge('feature');
DELETE FROM t WHERE pk = 3;
DELETE FROM dolt_conflicts_t WHERE base_pk = 3;
CALL dolt_conflicts_resolve('--theirs', 't');
SELECT * FROM t ORDER BY pk;
CALL dolt_commit('-Am', 'merge feature', '--date', '2026-01-01T00:03:00Z');
SELECT message FROM dolt_log;
SELECT is_merging FROM dolt_merge_status;

-- A unique key both branches took fails the merge.
CALL dolt_checkout('feature');
INSERT INTO t VALUES (8, 80, 'u');
CALL dolt_commit('-am', 'u on feature', '--date', '2026-01-01T00:04:00Z');
CALL dolt_checkout('main');
INSERT INTO t VALUES (9, 90, 'u');
CALL dolt_merge('feature');
CALL dolt_commit('-am', 'u on main', '--date', '2026-01-01T00:05:00Z');
CALL dolt_merge('feature');
SELECT pk, b FROM t WHERE b = 'u';
