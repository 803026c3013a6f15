-- dolt_reflog(): the history of where refs pointed, newest first, for the
-- current branch, a named branch, a tag, and after reset and branch delete.
SELECT * FROM dolt_reflog();
CREATE TABLE t (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'first');
CALL dolt_branch('b1');
CALL dolt_tag('v1');
CALL dolt_commit('--allow-empty', '-m', 'second');
SELECT * FROM dolt_reflog();
SELECT ref, commit_message FROM dolt_reflog('main');
SELECT ref, commit_message FROM dolt_reflog('refs/heads/main');
SELECT ref, commit_message FROM dolt_reflog('b1');
SELECT ref, commit_message FROM dolt_reflog('v1');
SELECT ref, commit_message FROM dolt_reflog('MAIN');
CALL dolt_reset('--hard', 'HEAD~1');
SELECT ref, commit_message FROM dolt_reflog('main');
CALL dolt_branch('-d', 'b1');
SELECT ref, commit_message FROM dolt_reflog('b1');
CALL dolt_checkout('-b', 'b2');
CALL dolt_commit('--allow-empty', '-m', 'on b2');
SELECT ref, commit_message FROM dolt_reflog();
SELECT COUNT(*) FROM dolt_reflog() WHERE commit_hash = (SELECT commit_hash FROM dolt_log WHERE message = 'first');
