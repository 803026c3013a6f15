-- dolt_commit_diff_dolt_schemas and dolt_commit_diff_dolt_procedures: the
-- schema objects that differ between two revisions, and the refusals of
-- a query that does not name one pair.
CREATE TABLE t (pk INT PRIMARY KEY);
CREATE VIEW v1 AS SELECT pk FROM t;
CALL dolt_commit('-Am', 'view v1');
CREATE VIEW v2 AS SELECT pk + 1 AS p FROM t;
CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW SET NEW.pk = NEW.pk * 2;
CREATE PROCEDURE p1() SELECT 1;
CALL dolt_commit('-Am', 'view v2, trigger, procedure');
DROP VIEW v1;
CREATE PROCEDURE p2() SELECT 2;
DESCRIBE dolt_commit_diff_dolt_schemas;
DESCRIBE dolt_commit_diff_dolt_procedures;
SELECT to_type, to_name, to_fragment, to_commit, from_type, from_name, from_commit, diff_type FROM dolt_commit_diff_dolt_schemas WHERE to_commit = 'HEAD' AND from_commit = 'HEAD~1' ORDER BY to_name;
SELECT to_type, to_name, from_type, from_name, diff_type FROM dolt_commit_diff_dolt_schemas WHERE to_commit = 'WORKING' AND from_commit = 'HEAD' ORDER BY to_name, from_name;
SELECT to_type, to_name, from_name, diff_type FROM dolt_commit_diff_dolt_schemas WHERE to_commit = 'WORKING' AND from_commit = 'HEAD~2' ORDER BY to_name, from_name;
SELECT to_name, to_create_stmt, to_commit, from_name, from_commit, diff_type FROM dolt_commit_diff_dolt_procedures WHERE to_commit = 'WORKING' AND from_commit = 'HEAD' ORDER BY to_name;
SELECT to_name, from_name, diff_type FROM dolt_commit_diff_dolt_procedures WHERE to_commit = 'HEAD' AND from_commit = 'WORKING' ORDER BY from_name;
SELECT COUNT(*) FROM dolt_commit_diff_dolt_schemas WHERE to_commit = 'HEAD' AND from_commit = 'HEAD';
SELECT * FROM dolt_commit_diff_dolt_schemas;
SELECT * FROM dolt_commit_diff_dolt_schemas WHERE to_commit = 'HEAD';
SELECT * FROM dolt_commit_diff_dolt_schemas WHERE to_commit = 'HEAD' AND from_commit = 'nosuch';
