-- dolt_ignore: patterns of tables that dolt_add('.') and dolt_status
-- leave out; adding one by name, with -f, and committing dolt_ignore itself.
DESCRIBE dolt_ignore;
SELECT * FROM dolt_ignore;
INSERT INTO dolt_ignore VALUES ('tmp_*', 1), ('keep_me', 0), ('scratch', true);
SELECT * FROM dolt_ignore ORDER BY pattern;
CREATE TABLE tmp_a (id INT PRIMARY KEY);
CREATE TABLE keep_me (id INT PRIMARY KEY);
CREATE TABLE scratch (id INT PRIMARY KEY);
CREATE TABLE real_t (id INT PRIMARY KEY);
SELECT * FROM dolt_status ORDER BY table_name;
CALL dolt_add('.');
SELECT * FROM dolt_status ORDER BY table_name;
CALL dolt_add('tmp_a');
SELECT * FROM dolt_status ORDER BY table_name;
CALL dolt_add('-f', 'tmp_a');
SELECT * FROM dolt_status ORDER BY table_name;
CALL dolt_commit('-m', 'with ignore');
SELECT table_name FROM dolt_diff ORDER BY table_name;
CALL dolt_commit('-Am', 'again');
SELECT * FROM dolt_status;
SHOW TABLES;
INSERT INTO scratch VALUES (1);
CALL dolt_commit('-am', 'scratch');
SELECT COUNT(*) FROM scratch AS OF 'HEAD';
