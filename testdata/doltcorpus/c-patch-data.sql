-- dolt_patch(): data changes as SQL statements (INSERT, UPDATE, DELETE),
-- quoting of values, with and without a table name.
CREATE TABLE t (pk INT PRIMARY KEY, v VARCHAR(20));
INSERT INTO t VALUES (1, 'a'), (2, 'b');
CALL dolt_commit('-Am', 'first');
SELECT * FROM dolt_patch('HEAD~1', 'HEAD');
SELECT * FROM dolt_patch('HEAD', 'WORKING');
UPDATE t SET v = 'bb' WHERE pk = 2;
INSERT INTO t VALUES (3, 'it''s'), (4, NULL), (5, 'back\\slash');
DELETE FROM t WHERE pk = 1;
SELECT * FROM dolt_patch('HEAD', 'WORKING');
SELECT statement_order, table_name, diff_type, statement FROM dolt_patch('HEAD', 'WORKING', 't');
CREATE TABLE u (id INT PRIMARY KEY, d DATETIME, f DOUBLE, j JSON, b VARBINARY(10), e ENUM('x', 'y'), dec1 DECIMAL(5, 2), bt BIT(4));
INSERT INTO u VALUES (1, '2020-01-02 03:04:05', 1.5, '{"a": 1}', 'bin', 'y', 12.5, b'101');
SELECT statement FROM dolt_patch('HEAD', 'WORKING', 'u') ORDER BY statement_order;
CREATE TABLE k (a INT, b INT);
INSERT INTO k VALUES (1, 2), (1, 2);
SELECT statement FROM dolt_patch('HEAD', 'WORKING', 'k') ORDER BY statement_order;
CALL dolt_commit('-Am', 'second');
DELETE FROM k;
SELECT statement FROM dolt_patch('HEAD', 'WORKING', 'k') ORDER BY statement_order;
SELECT statement FROM dolt_patch('WORKING', 'HEAD', 't') ORDER BY statement_order;
