-- dolt_stash('push', name) and ('pop', name): the working set saved and
-- restored, staged changes included; the dolt_stashes table.
DESCRIBE dolt_stashes;
SELECT * FROM dolt_stashes;
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-Am', 'first');
UPDATE t SET v = 2;
CALL dolt_stash('push', 's1');
SELECT * FROM dolt_stashes;
SELECT * FROM t;
SELECT * FROM dolt_status;
INSERT INTO t VALUES (2, 2);
CALL dolt_add('t');
CALL dolt_stash('push', 's1');
SELECT * FROM dolt_stashes ORDER BY stash_id;
SELECT * FROM t;
CALL dolt_stash('pop', 's1');
SELECT * FROM t ORDER BY pk;
SELECT * FROM dolt_status;
SELECT * FROM dolt_stashes;
CALL dolt_commit('-am', 'second');
CALL dolt_stash('pop', 's1');
SELECT * FROM t ORDER BY pk;
SELECT * FROM dolt_status;
SELECT * FROM dolt_stashes;
