-- dolt_patch(): schema changes as SQL statements: CREATE, ALTER (add,
-- drop, rename and modify a column, indexes), DROP and RENAME of tables.
CREATE TABLE t (pk INT PRIMARY KEY, a INT, b VARCHAR(10));
INSERT INTO t VALUES (1, 1, 'x');
CALL dolt_commit('-Am', 'first');
ALTER TABLE t ADD COLUMN c INT NOT NULL DEFAULT 7;
SELECT diff_type, statement FROM dolt_patch('HEAD', 'WORKING') ORDER BY statement_order;
CALL dolt_reset('--hard');
ALTER TABLE t DROP COLUMN b;
SELECT diff_type, statement FROM dolt_patch('HEAD', 'WORKING') ORDER BY statement_order;
CALL dolt_reset('--hard');
ALTER TABLE t RENAME COLUMN a TO aa;
SELECT diff_type, statement FROM dolt_patch('HEAD', 'WORKING') ORDER BY statement_order;
CALL dolt_reset('--hard');
ALTER TABLE t MODIFY COLUMN b VARCHAR(20);
SELECT diff_type, statement FROM dolt_patch('HEAD', 'WORKING') ORDER BY statement_order;
CALL dolt_reset('--hard');
CREATE INDEX ia ON t (a);
SELECT diff_type, statement FROM dolt_patch('HEAD', 'WORKING') ORDER BY statement_order;
CALL dolt_reset('--hard');
DROP TABLE t;
SELECT diff_type, statement FROM dolt_patch('HEAD', 'WORKING') ORDER BY statement_order;
CALL dolt_reset('--hard');
RENAME TABLE t TO t2;
SELECT table_name, diff_type, statement FROM dolt_patch('HEAD', 'WORKING') ORDER BY statement_order;
CALL dolt_reset('--hard');
CREATE TABLE n (id INT PRIMARY KEY AUTO_INCREMENT, name VARCHAR(5) NOT NULL, KEY (name), CHECK (id > 0));
SELECT diff_type, statement FROM dolt_patch('HEAD', 'WORKING') ORDER BY statement_order;
