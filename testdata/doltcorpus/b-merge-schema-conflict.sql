-- A merge with a schema conflict (a column changed to different types): the
-- dolt_schema_conflicts table, dolt_status, and what refuses to go on.
DESCRIBE dolt_schema_conflicts;
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-Am', 'first');
CALL dolt_checkout('-b', 'feature');
ALTER TABLE t MODIFY v VARCHAR(10);
CALL dolt_commit('-am', 'f1');
CALL dolt_checkout('main');
ALTER TABLE t MODIFY v BIGINT;
CALL dolt_commit('-am', 'm1');
CALL dolt_merge('feature');
SET autocommit = 0;
CALL dolt_merge('feature');
SELECT * FROM dolt_merge_status;
SELECT * FROM dolt_conflicts;
SELECT * FROM dolt_schema_conflicts;
SELECT * FROM dolt_status;
CALL dolt_conflicts_resolve('--theirs', 't');
CALL dolt_commit('-m', 'merged');
SHOW CREATE TABLE t;
COMMIT;
CALL dolt_merge('--abort');
SELECT * FROM dolt_schema_conflicts;
SELECT * FROM dolt_status;
