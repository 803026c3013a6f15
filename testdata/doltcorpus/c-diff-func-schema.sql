-- dolt_diff() across a schema change: columns of the to and from sides
-- follow each revision's schema; a table created or dropped in between.
CREATE TABLE t (pk INT PRIMARY KEY, a INT);
INSERT INTO t VALUES (1, 10);
CALL dolt_commit('-Am', 'first');
ALTER TABLE t ADD COLUMN b VARCHAR(5);
UPDATE t SET b = 'x';
INSERT INTO t VALUES (2, 20, 'y');
CALL dolt_commit('-am', 'add b');
SELECT * FROM dolt_diff('HEAD~1', 'HEAD', 't') ORDER BY COALESCE(to_pk, from_pk);
SELECT * FROM dolt_diff('HEAD', 'HEAD~1', 't') ORDER BY COALESCE(to_pk, from_pk);
ALTER TABLE t DROP COLUMN a;
SELECT * FROM dolt_diff('HEAD', 'WORKING', 't') ORDER BY COALESCE(to_pk, from_pk);
CREATE TABLE n (id INT PRIMARY KEY);
INSERT INTO n VALUES (7);
SELECT * FROM dolt_diff('HEAD', 'WORKING', 'n');
SELECT * FROM dolt_diff('WORKING', 'HEAD', 'n');
CALL dolt_commit('-Am', 'n');
DROP TABLE n;
SELECT to_id, from_id, diff_type FROM dolt_diff('HEAD', 'WORKING', 'n');
SELECT to_id, from_id, diff_type FROM dolt_diff('HEAD~2', 'HEAD~1', 'n');
