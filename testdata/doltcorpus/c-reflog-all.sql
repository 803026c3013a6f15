-- dolt_reflog('--all') and the reflog's errors: too many arguments, NULL,
-- unknown refs and flags.
CREATE TABLE t (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'first');
CALL dolt_branch('b1');
CALL dolt_tag('v1');
CALL dolt_commit('--allow-empty', '-m', 'second');
CALL dolt_branch('-f', 'b1', 'HEAD');
SELECT ref, commit_message FROM dolt_reflog('--all');
SELECT ref, commit_message FROM dolt_reflog('--all', 'b1');
SELECT ref, commit_message FROM dolt_reflog('b1', '--all');
SELECT * FROM dolt_reflog('nope');
SELECT * FROM dolt_reflog('main', 'b1');
SELECT * FROM dolt_reflog(NULL);
SELECT * FROM dolt_reflog(1);
SELECT * FROM dolt_reflog('--bogus');
SELECT * FROM dolt_reflog('-a');
SELECT * FROM dolt_reflog('HEAD');
SELECT COUNT(*) FROM dolt_reflog('--all');
SELECT ref, COUNT(*) FROM dolt_reflog('--all') GROUP BY ref ORDER BY ref;
