-- basic.sql: DDL, DML, transactions and errors through the mysql client.
CREATE TABLE items (
  id INT PRIMARY KEY AUTO_INCREMENT,
  name VARCHAR(20) NOT NULL UNIQUE,
  qty INT NOT NULL DEFAULT 0,
  price DECIMAL(8,2),
  KEY qty_idx (qty)
);
SHOW TABLES;
INSERT INTO items (name, qty, price) VALUES ('apple', 3, 0.50), ('pear', 5, 0.75), ('plum', 0, NULL);
SELECT * FROM items ORDER BY id;
UPDATE items SET qty = qty + 1 WHERE name = 'plum';
DELETE FROM items WHERE name = 'pear';
SELECT name, qty FROM items WHERE qty BETWEEN 1 AND 10 ORDER BY qty;
ALTER TABLE items ADD COLUMN note TEXT;
INSERT INTO items (name, qty, note) VALUES ('fig', 2, 'dried');
SELECT id, name, note FROM items ORDER BY id;

-- A transaction rolled back leaves no trace; one committed stays.
BEGIN;
INSERT INTO items (name, qty) VALUES ('kiwi', 1);
SELECT COUNT(*) FROM items;
ROLLBACK;
SELECT COUNT(*) FROM items;
START TRANSACTION;
UPDATE items SET price = 1.25 WHERE name = 'fig';
COMMIT;
SELECT name, price FROM items WHERE name = 'fig';

-- Errors print with MySQL's codes and the script goes on (--force).
SELEC 1;
SELECT * FROM no_such_table;
SELECT no_such_column FROM items;
INSERT INTO items (name, qty) VALUES ('apple', 1);
INSERT INTO items (name, qty) VALUES ('grape', 'many');
SELECT name FROM items ORDER BY name;

DROP TABLE items;
SHOW TABLES;
