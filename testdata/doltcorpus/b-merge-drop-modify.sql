-- A merge of a table one branch dropped and the other changed (its rows,
-- or its schema), from either side: a schema conflict, and what it
-- leaves to resolve (dolt_conflicts_resolve refuses it; the order of
-- Dolt's list of unmerged tables changes from run to run).
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
CREATE TABLE u (pk INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1), (2, 2);
INSERT INTO u VALUES (1, 1);
CALL dolt_commit('-Am', 'base');
CALL dolt_branch('other');
DROP TABLE t;
UPDATE u SET v = 5 WHERE pk = 1;
CALL dolt_commit('-Am', 'drop t, change u');
CALL dolt_checkout('other');
UPDATE t SET v = 10 WHERE pk = 1;
DROP TABLE u;
CALL dolt_commit('-Am', 'change t, drop u');
CALL dolt_checkout('main');
SET @@dolt_allow_commit_conflicts = 1;
CALL dolt_merge('other');
SHOW TABLES;
SELECT * FROM dolt_status ORDER BY table_name;
SELECT * FROM dolt_conflicts;
SELECT table_name, our_schema, their_schema, description FROM dolt_schema_conflicts ORDER BY table_name;
SELECT is_merging, source, target, LENGTH(unmerged_tables) FROM dolt_merge_status;
CALL dolt_merge('--abort');
CALL dolt_checkout('-b', 'schema', 'other');
ALTER TABLE t ADD COLUMN w INT;
CALL dolt_commit('-am', 'add w');
CALL dolt_checkout('main');
CALL dolt_merge('schema');
SELECT table_name, description FROM dolt_schema_conflicts ORDER BY table_name;
CALL dolt_conflicts_resolve('--theirs', 't');
CALL dolt_conflicts_resolve('--ours', 'u');
SHOW TABLES;
SELECT * FROM t ORDER BY pk;
SELECT * FROM dolt_status ORDER BY table_name, staged;
SELECT * FROM dolt_schema_conflicts ORDER BY table_name;
SELECT * FROM u ORDER BY pk;
