-- dolt_rm: committed, unchanged tables dropped and their deletion staged;
-- several at once; --cached stages the deletion but keeps the table.
CREATE TABLE t (pk INT PRIMARY KEY);
CREATE TABLE s (pk INT PRIMARY KEY);
CREATE TABLE r (pk INT PRIMARY KEY);
CREATE TABLE q (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'base');
CALL dolt_rm('t');
SHOW TABLES;
SELECT * FROM dolt_status ORDER BY table_name, staged;
CALL dolt_rm('s', 'q');
SELECT * FROM dolt_status ORDER BY table_name, staged;
CALL dolt_rm('--cached', 'r');
SHOW TABLES;
SELECT * FROM dolt_status ORDER BY table_name, staged;
CALL dolt_commit('-m', 'removed');
SELECT * FROM dolt_status ORDER BY table_name, staged;
SHOW TABLES;
