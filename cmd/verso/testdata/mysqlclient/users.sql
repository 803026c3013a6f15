-- users.sql: accounts and grants through the mysql client.
CREATE TABLE notes (id INT PRIMARY KEY, body TEXT);
CREATE USER 'reader'@'%' IDENTIFIED BY 'pw';
GRANT SELECT ON test.* TO 'reader'@'%';
SHOW GRANTS FOR 'reader'@'%';
CREATE USER 'reader'@'%' IDENTIFIED BY 'again';
GRANT INSERT ON test.notes TO 'reader'@'%';
SHOW GRANTS FOR 'reader'@'%';
REVOKE INSERT ON test.notes FROM 'reader'@'%';
SHOW GRANTS FOR 'reader'@'%';
SELECT user, host FROM mysql.user WHERE user = 'reader';
DROP USER 'reader'@'%';
DROP USER 'reader'@'%';
SELECT user, host FROM mysql.user WHERE user = 'reader';
