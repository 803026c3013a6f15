-- dolt_ignore's patterns: * and ?, a more specific pattern winning, a
-- conflict between patterns; writes to dolt_ignore that are refused.
INSERT INTO dolt_ignore VALUES ('x?', 1), ('a*', 1), ('ab*', 0), ('q*', 1), ('*q', 0);
INSERT INTO dolt_ignore VALUES ('x?', 0);
INSERT INTO dolt_ignore VALUES (NULL, 1);
INSERT INTO dolt_ignore (pattern) VALUES ('zz');
SELECT * FROM dolt_ignore ORDER BY pattern;
CREATE TABLE xy (id INT PRIMARY KEY);
CREATE TABLE xyz (id INT PRIMARY KEY);
CREATE TABLE abc (id INT PRIMARY KEY);
CREATE TABLE ac (id INT PRIMARY KEY);
SELECT * FROM dolt_status ORDER BY table_name;
CALL dolt_add('.');
SELECT * FROM dolt_status ORDER BY table_name;
CREATE TABLE qq (id INT PRIMARY KEY);
CALL dolt_add('.');
CALL dolt_add('qq');
SELECT * FROM dolt_status ORDER BY table_name;
UPDATE dolt_ignore SET ignored = 0 WHERE pattern = 'q*';
CALL dolt_add('.');
DELETE FROM dolt_ignore WHERE pattern = 'a*';
SELECT * FROM dolt_ignore ORDER BY pattern;
SELECT * FROM dolt_status ORDER BY table_name;
