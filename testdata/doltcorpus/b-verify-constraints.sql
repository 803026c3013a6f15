-- dolt_verify_constraints: clean tables, a foreign key broken with
-- foreign_key_checks off (all tables, one table, --all, --output-only).
CREATE TABLE parent (id INT PRIMARY KEY);
CREATE TABLE child (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES parent(id));
INSERT INTO parent VALUES (1);
CALL dolt_commit('-Am', 'first');
CALL dolt_verify_constraints();
SET foreign_key_checks = 0;
INSERT INTO child VALUES (1, 99);
SET foreign_key_checks = 1;
CALL dolt_verify_constraints('--output-only');
CALL dolt_verify_constraints('-o', 'parent');
CALL dolt_verify_constraints();
SELECT * FROM dolt_constraint_violations;
CALL dolt_verify_constraints('child');
CALL dolt_verify_constraints('-a');
CALL dolt_commit('-am', 'orphan');
CALL dolt_verify_constraints();
CALL dolt_verify_constraints('--all', '--output-only');
SET @@dolt_force_transaction_commit = 1;
CALL dolt_verify_constraints('--all');
SELECT * FROM dolt_constraint_violations;
SELECT violation_type, id, pid FROM dolt_constraint_violations_child;
