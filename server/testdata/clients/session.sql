-- The client session of server/clients_test.go for the mysql command-line
-- client, which runs it over TLS (verifying the server's certificate) as
-- the caching_sha2_password account app: the steps of session.py,
-- session.js and the Go driver's, as SQL. Its output is
-- session-mysql.expected.
SHOW STATUS LIKE 'Ssl_version';
SELECT CURRENT_USER();
CREATE DATABASE shop;
USE shop;
CREATE TABLE items (id BIGINT UNSIGNED PRIMARY KEY, price DECIMAL(10,2), at DATETIME(6), doc JSON, data BLOB, kind ENUM('a','b','c'), name VARCHAR(5));
PREPARE ins FROM 'INSERT INTO items VALUES (?, ?, ?, ?, ?, ?, ?)';
SET @id = 18446744073709551615, @price = 12345678.90, @at = '2026-01-02 03:04:05.123456', @doc = '{"a": [1, 2, {"b": null}]}', @data = X'00FF1078', @kind = 'b', @name = 'hello';
EXECUTE ins USING @id, @price, @at, @doc, @data, @kind, @name;
SET @id = 1, @price = -0.50, @at = '1999-12-31 23:59:59.000001', @doc = '[]', @data = 'a', @kind = 'a', @name = '';
EXECUTE ins USING @id, @price, @at, @doc, @data, @kind, @name;
DEALLOCATE PREPARE ins;
SELECT id, price, at, CAST(doc AS CHAR) AS doc, HEX(data), kind, name FROM items ORDER BY id DESC;
START TRANSACTION;
INSERT INTO items (id, kind) VALUES (2, 'c');
UPDATE items SET price = 0;
ROLLBACK;
SELECT COUNT(*), MIN(price) FROM items;
INSERT INTO items (id) VALUES (1);
SELECT * FROM nosuch;
SELEC 1;
INSERT INTO items (id, doc) VALUES (3, '{bad');
INSERT INTO items (id) VALUES (-1);
INSERT INTO items (id, name) VALUES (4, 'toolong');
INSERT INTO items (id, kind) VALUES (5, 'z');
CALL dolt_commit('-Am', 'first');
CALL dolt_checkout('-b', 'feature');
INSERT INTO items (id, kind) VALUES (3, 'c');
CALL dolt_commit('-am', 'feature row');
CALL dolt_checkout('main');
CALL dolt_merge('feature');
SELECT active_branch(), COUNT(*) FROM items;
SELECT COUNT(*) FROM dolt_log;
DELIMITER //
CREATE PROCEDURE two_sets() BEGIN SELECT COUNT(*) AS n FROM items; SELECT id FROM items ORDER BY id LIMIT 2; END//
DELIMITER ;
CALL two_sets();
