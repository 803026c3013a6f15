-- dolt_stash('drop', name) and ('clear', name), stashes of several names,
-- of untracked tables (-u), and from another branch.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-Am', 'first');
UPDATE t SET v = 2;
CALL dolt_stash('push', 'a');
UPDATE t SET v = 3;
CALL dolt_stash('push', 'b');
SELECT name, stash_id, branch, commit_message FROM dolt_stashes ORDER BY name, stash_id;
CALL dolt_stash('drop', 'b');
SELECT name, stash_id FROM dolt_stashes ORDER BY name, stash_id;
CALL dolt_stash('drop', 'b');
CALL dolt_branch('other');
CALL dolt_checkout('other');
UPDATE t SET v = 4;
CALL dolt_stash('push', 'a');
SELECT name, stash_id, branch, commit_message FROM dolt_stashes ORDER BY name, stash_id;
CALL dolt_stash('clear', 'a');
SELECT * FROM dolt_stashes;
CREATE TABLE n (id INT PRIMARY KEY);
CALL dolt_stash('push', 'u');
CALL dolt_stash('push', '-u', 'u');
SHOW TABLES;
SELECT name, stash_id, branch FROM dolt_stashes;
CALL dolt_stash('pop', 'u', 'stash@{0}');
SHOW TABLES;
SELECT * FROM dolt_stashes;
