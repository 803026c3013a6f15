-- dolt_clean(): untracked new tables dropped; staged new tables, modified
-- and committed tables kept; nothing to clean.
CALL dolt_clean();
CREATE TABLE t (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'base');
CREATE TABLE n1 (pk INT PRIMARY KEY);
CREATE TABLE n2 (pk INT PRIMARY KEY);
CREATE TABLE n3 (pk INT PRIMARY KEY);
INSERT INTO t VALUES (1);
CALL dolt_add('n3');
CALL dolt_clean();
SHOW TABLES;
SELECT * FROM dolt_status ORDER BY table_name, staged;
SELECT * FROM t;
CALL dolt_clean();
SHOW TABLES;
