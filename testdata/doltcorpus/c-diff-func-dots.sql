-- dolt_diff() with 'a..b' and 'a...b' (from the merge base) between
-- branches that have diverged.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-Am', 'base');
CALL dolt_branch('other');
INSERT INTO t VALUES (2, 2);
CALL dolt_commit('-am', 'on main');
CALL dolt_checkout('other');
INSERT INTO t VALUES (3, 3);
CALL dolt_commit('-am', 'on other');
CALL dolt_checkout('main');
SELECT to_pk, from_pk, to_commit, from_commit, diff_type FROM dolt_diff('main', 'other', 't') ORDER BY COALESCE(to_pk, from_pk);
SELECT to_pk, from_pk, to_commit, from_commit, diff_type FROM dolt_diff('main..other', 't') ORDER BY COALESCE(to_pk, from_pk);
SELECT to_pk, from_pk, to_commit, diff_type, from_commit = (SELECT commit_hash FROM dolt_log WHERE message = 'base') AS from_base FROM dolt_diff('main...other', 't') ORDER BY COALESCE(to_pk, from_pk);
SELECT to_pk, from_pk, to_commit, diff_type FROM dolt_diff('other...main', 't') ORDER BY COALESCE(to_pk, from_pk);
SELECT to_pk, from_pk, diff_type FROM dolt_diff('other..main', 't') ORDER BY COALESCE(to_pk, from_pk);
SELECT to_pk, from_pk, diff_type FROM dolt_diff('HEAD~1..HEAD', 't');
SELECT to_pk, from_pk, diff_type FROM dolt_diff('HEAD..WORKING', 't');
SELECT * FROM dolt_diff('HEAD...WORKING', 't');
SELECT * FROM dolt_diff('main..', 't');
SELECT * FROM dolt_diff('..main', 't');
SELECT * FROM dolt_diff('main...nope', 't');
SELECT * FROM dolt_diff('main..other', 't', 'x');
