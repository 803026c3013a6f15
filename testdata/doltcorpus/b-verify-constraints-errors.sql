-- dolt_verify_constraints' refusals and edge cases: unknown tables and
-- flags, a table without constraints, no tables at all.
CALL dolt_verify_constraints();
CREATE TABLE t (pk INT PRIMARY KEY, v INT CHECK (v > 0));
CALL dolt_verify_constraints('t');
CALL dolt_verify_constraints('nosuch');
CALL dolt_verify_constraints('t', 'nosuch');
CALL dolt_verify_constraints('--bogus');
CALL dolt_verify_constraints('-a', '-o', 't');
CALL dolt_verify_constraints('dolt_log');
SELECT * FROM dolt_constraint_violations;
