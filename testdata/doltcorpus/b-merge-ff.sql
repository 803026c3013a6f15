-- dolt_merge fast-forward: result columns, the branch moves to the merged
-- commit (no merge commit), --ff-only when it is possible.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
CALL dolt_commit('-Am', 'first');
CALL dolt_checkout('-b', 'feature');
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-am', 'f1');
INSERT INTO t VALUES (2, 2);
CALL dolt_commit('-am', 'f2');
CALL dolt_checkout('main');
CALL dolt_branch('other');
CALL dolt_merge('feature');
SELECT commit_hash, message, parents FROM dolt_log;
SELECT * FROM t ORDER BY pk;
SELECT * FROM dolt_status;
SELECT name, hash = (SELECT hash FROM dolt_branches WHERE name = 'feature') AS same FROM dolt_branches ORDER BY name;
CALL dolt_checkout('other');
CALL dolt_merge('--ff-only', 'feature');
SELECT message FROM dolt_log;
