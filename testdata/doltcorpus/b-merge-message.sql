-- dolt_merge -m/--message on a merge commit, and --author; -m is ignored by a
-- fast-forward.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
CALL dolt_commit('-Am', 'first');
CALL dolt_branch('b2');
CALL dolt_checkout('-b', 'feature');
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-am', 'f1');
CALL dolt_checkout('main');
CALL dolt_merge('-m', 'ff with message', 'feature');
SELECT message FROM dolt_log;
CALL dolt_checkout('b2');
CREATE TABLE u (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'b2 change');
CALL dolt_merge('--message', 'my merge', '--author', 'Ann Other <ann@example.com>', 'feature');
SELECT message, author, author_email, committer, email FROM dolt_log LIMIT 1;
CALL dolt_merge('-m');
CALL dolt_merge('--author');
