-- dolt_hashof_db(): the working root's hash, or HEAD's, STAGED's, a branch's;
-- how they part as tables change; unknown refs, NULL, arity.
CREATE TABLE t (pk INT PRIMARY KEY);
SELECT dolt_hashof_db() = dolt_hashof_db('WORKING'), dolt_hashof_db('HEAD') = dolt_hashof_db('WORKING');
CALL dolt_add('t');
SELECT dolt_hashof_db('STAGED') = dolt_hashof_db('WORKING'), dolt_hashof_db('HEAD') = dolt_hashof_db('STAGED');
CALL dolt_commit('-m', 'c');
SELECT dolt_hashof_db('HEAD') = dolt_hashof_db(), dolt_hashof_db('head') = dolt_hashof_db();
CALL dolt_branch('feat');
INSERT INTO t VALUES (1);
SELECT dolt_hashof_db('main') = dolt_hashof_db('feat'), dolt_hashof_db('main') = dolt_hashof_db('HEAD');
SELECT dolt_hashof_db();
SELECT dolt_hashof_db('nosuch');
SELECT dolt_hashof_db('HEAD~1');
SELECT dolt_hashof_db(NULL);
SELECT dolt_hashof_db('HEAD', 'main');
