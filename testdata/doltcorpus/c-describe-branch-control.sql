-- DESCRIBE and contents of dolt_branch_control and
-- dolt_branch_namespace_control, before and after a branch is made.
DESCRIBE dolt_branch_control;
DESCRIBE dolt_branch_namespace_control;
SELECT * FROM dolt_branch_control ORDER BY `database`, branch, user, host;
SELECT * FROM dolt_branch_namespace_control;
CREATE TABLE t (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'first');
CALL dolt_branch('b1');
SELECT * FROM dolt_branch_control ORDER BY `database`, branch, user, host;
SELECT * FROM dolt_status;
