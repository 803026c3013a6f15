-- SHOW DATABASES with revision databases: after USE of a branch, a tag, a
-- commit and after qualified reads; unknown revisions.
CREATE TABLE t (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'first');
CALL dolt_branch('feature');
CALL dolt_tag('v1');
SHOW DATABASES;
USE `test/feature`;
SHOW DATABASES;
USE `test/v1`;
SHOW DATABASES;
SELECT DATABASE();
USE test;
SELECT COUNT(*) FROM `test/main`.t;
SHOW DATABASES;
USE `test/nosuch`;
SELECT DATABASE();
SELECT * FROM `test/nosuch`.t;
USE `nosuch/main`;
SELECT * FROM information_schema.schemata ORDER BY schema_name;
