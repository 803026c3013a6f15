-- dolt_clean and tables matched by dolt_ignore: kept by dolt_clean(), dropped
-- with -x, and dropped when named.
INSERT INTO dolt_ignore VALUES ('tmp_%', true);
CALL dolt_commit('-Am', 'ignore rules');
CREATE TABLE tmp_a (pk INT PRIMARY KEY);
CREATE TABLE tmp_b (pk INT PRIMARY KEY);
CREATE TABLE n (pk INT PRIMARY KEY);
CALL dolt_clean();
SHOW TABLES;
CALL dolt_clean('--dry-run', '-x');
SHOW TABLES;
CALL dolt_clean('tmp_b');
SHOW TABLES;
CALL dolt_clean('-x');
SHOW TABLES;
