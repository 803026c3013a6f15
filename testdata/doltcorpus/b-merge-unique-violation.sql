-- A merge that leaves a unique key violation (both sides insert the same
-- key value): the violation rows and their JSON; abort.
CREATE TABLE t (pk INT PRIMARY KEY, u INT, UNIQUE KEY uk (u));
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-Am', 'first');
CALL dolt_checkout('-b', 'feature');
INSERT INTO t VALUES (2, 5);
CALL dolt_commit('-am', 'f1');
CALL dolt_checkout('main');
INSERT INTO t VALUES (3, 5);
CALL dolt_commit('-am', 'm1');
SET autocommit = 0;
CALL dolt_merge('feature');
SELECT * FROM dolt_constraint_violations;
DESCRIBE dolt_constraint_violations_t;
SELECT * FROM dolt_constraint_violations_t ORDER BY pk;
SELECT * FROM t ORDER BY pk;
SELECT * FROM dolt_status;
CALL dolt_merge('--abort');
COMMIT;
SELECT * FROM dolt_constraint_violations;
SELECT * FROM t ORDER BY pk;
