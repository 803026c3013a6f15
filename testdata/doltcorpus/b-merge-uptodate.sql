-- dolt_merge when there is nothing to merge: itself, an ancestor, an equal
-- branch, HEAD; the result row and its warning.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
CALL dolt_commit('-Am', 'first');
CALL dolt_branch('same');
CALL dolt_branch('behind');
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-am', 'second');
CALL dolt_merge('main');
SHOW WARNINGS;
CALL dolt_merge('behind');
SHOW WARNINGS;
CALL dolt_merge('HEAD~1');
CALL dolt_merge('HEAD');
CALL dolt_merge('--no-ff', 'behind');
CALL dolt_merge('--squash', 'behind');
SELECT message FROM dolt_log;
SELECT * FROM dolt_status;
CALL dolt_checkout('same');
CALL dolt_branch('-f', 'behind', 'same');
CALL dolt_merge('behind');
