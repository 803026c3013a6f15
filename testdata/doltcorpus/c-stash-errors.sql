-- dolt_stash's errors: nothing to stash, missing subcommand or name,
-- unknown subcommands, popping or dropping what is not there.
CALL dolt_stash('push', 's');
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-Am', 'first');
CALL dolt_stash('push', 's');
CALL dolt_stash();
CALL dolt_stash('push');
CALL dolt_stash('pop');
CALL dolt_stash('list');
CALL dolt_stash('bogus', 's');
CALL dolt_stash('pop', 's');
CALL dolt_stash('drop', 's');
CALL dolt_stash('clear', 's');
UPDATE t SET v = 2;
CALL dolt_stash('push', 's', 'extra');
CALL dolt_stash('push', 's');
CALL dolt_stash('pop', 's', 'stash@{5}');
CALL dolt_stash('pop', 'nope');
CALL dolt_stash('drop', 's', 'stash@{9}');
CALL dolt_stash('PUSH', 's');
CALL dolt_stash('push', '--bogus', 's');
UPDATE t SET v = 5;
CALL dolt_stash('pop', 's');
SELECT * FROM t;
SELECT name, stash_id FROM dolt_stashes;
