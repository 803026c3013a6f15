-- dolt_checkout's refusals: unknown names, no arguments, bad flags, ancestor
-- specs, tags and commits (no detached head).
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
CALL dolt_commit('-Am', 'first');
CALL dolt_tag('v1');
CALL dolt_checkout('nosuch');
CALL dolt_checkout();
CALL dolt_checkout('--bogus');
CALL dolt_checkout('HEAD');
CALL dolt_checkout('HEAD~1');
CALL dolt_checkout('v1');
SET @h = (SELECT hash FROM dolt_branches WHERE name = 'main');
CALL dolt_checkout(@h);
CALL dolt_checkout('');
CALL dolt_checkout('main', 'feature');
CALL dolt_checkout('-b', 'x', 'y', 'z');
SELECT active_branch();
SELECT name FROM dolt_branches ORDER BY name;
