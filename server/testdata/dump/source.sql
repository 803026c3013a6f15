-- The database of the dump round trip (dump_test.go), made in MariaDB,
-- dumped with mariadb-dump, loaded into verso, dumped from verso with
-- mysqldump and loaded back into MariaDB: each copy must hold the same
-- rows.
CREATE TABLE customers (
  id INT UNSIGNED NOT NULL AUTO_INCREMENT,
  name VARCHAR(100) CHARACTER SET utf8mb4 NOT NULL,
  email VARCHAR(200) DEFAULT NULL,
  balance DECIMAL(12,2) NOT NULL DEFAULT 0.00,
  joined DATETIME(6) NOT NULL,
  born DATE DEFAULT NULL,
  tier ENUM('free','pro','team') NOT NULL DEFAULT 'free',
  PRIMARY KEY (id),
  UNIQUE KEY email (email),
  KEY tier_joined (tier, joined)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE orders (
  id BIGINT UNSIGNED NOT NULL,
  customer_id INT UNSIGNED NOT NULL,
  total DECIMAL(12,2) NOT NULL,
  note TEXT,
  payload BLOB,
  meta JSON,
  placed TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  flags BIT(8) DEFAULT NULL,
  ratio DOUBLE DEFAULT NULL,
  PRIMARY KEY (id),
  KEY customer (customer_id),
  CONSTRAINT orders_customer FOREIGN KEY (customer_id) REFERENCES customers (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE tags (
  name VARCHAR(20) NOT NULL,
  weight SMALLINT NOT NULL,
  PRIMARY KEY (name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

INSERT INTO customers (name, email, balance, joined, born, tier) VALUES
  ('Ada Lovelace', 'ada@example.com', 1234.50, '2020-01-02 03:04:05.123456', '1815-12-10', 'pro'),
  ('Zoë Ünïcödé 漢字', NULL, -0.01, '2021-06-30 23:59:59.999999', NULL, 'free'),
  ('O''Brien "quoted" \\ backslash', 'ob@example.com', 99999999.99, '1999-12-31 00:00:00.000001', '2000-02-29', 'team');

INSERT INTO orders VALUES
  (18446744073709551615, 1, 10.00, 'line one\nline two\ttab', X'00FF10275C22', '{"items": [1, 2, 3], "gift": true, "to": "Zoë"}', '2024-03-04 05:06:07', b'10100101', 0.1),
  (1, 2, 0.00, '', '', '[]', '2024-03-04 05:06:08', NULL, -1.5e300),
  (2, 3, 12345678.90, NULL, NULL, NULL, '2024-03-04 05:06:09', b'00000000', NULL);

INSERT INTO tags VALUES ('a', 1), ('b', -32768), ('c', 32767);
