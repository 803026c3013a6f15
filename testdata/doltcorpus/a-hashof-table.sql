-- dolt_hashof_table(): a table's hash follows its content (back to the same
-- after an undo); unknown tables, other case, system tables, NULL, arity.
CREATE TABLE t (pk INT PRIMARY KEY);
CREATE TABLE u (pk INT PRIMARY KEY, v INT);
SELECT dolt_hashof_table('t');
SELECT dolt_hashof_table('t') = dolt_hashof_table('u');
SET @before = dolt_hashof_table('t');
INSERT INTO t VALUES (99);
SELECT dolt_hashof_table('t') = @before;
DELETE FROM t WHERE pk = 99;
SELECT dolt_hashof_table('t') = @before;
SELECT dolt_hashof_table('nosuch');
SELECT dolt_hashof_table('T');
SELECT dolt_hashof_table('dolt_log');
SELECT dolt_hashof_table(NULL);
SELECT dolt_hashof_table();
SELECT dolt_hashof_table('t', 'u');
