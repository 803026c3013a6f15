-- A conflicting dolt_merge with autocommit off: conflicts stay in the
-- transaction; COMMIT with them is refused and rolls back.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1), (2, 2);
CALL dolt_commit('-Am', 'first');
CALL dolt_checkout('-b', 'feature');
UPDATE t SET v = 10 WHERE pk = 1;
INSERT INTO t VALUES (3, 30);
CALL dolt_commit('-am', 'f1');
CALL dolt_checkout('main');
UPDATE t SET v = 100 WHERE pk = 1;
INSERT INTO t VALUES (3, 300);
CALL dolt_commit('-am', 'm1');
SET autocommit = 0;
CALL dolt_merge('feature');
SHOW WARNINGS;
SELECT * FROM dolt_merge_status;
SELECT * FROM dolt_conflicts;
SELECT * FROM dolt_status;
COMMIT;
SELECT * FROM dolt_merge_status;
SELECT * FROM dolt_conflicts;
SELECT * FROM t ORDER BY pk;
CALL dolt_merge('feature');
ROLLBACK;
SELECT * FROM dolt_conflicts;
