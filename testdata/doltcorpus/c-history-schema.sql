-- dolt_history_<table> across schema changes and branches: columns follow
-- the current schema; rows of other branches do not show.
CREATE TABLE t (pk INT PRIMARY KEY, v VARCHAR(10));
INSERT INTO t VALUES (1, 'a');
CALL dolt_commit('-Am', 'first');
ALTER TABLE t ADD COLUMN w INT;
UPDATE t SET w = 5;
CALL dolt_commit('-am', 'add w');
DESCRIBE dolt_history_t;
SELECT pk, v, w FROM dolt_history_t ORDER BY commit_date, pk;
ALTER TABLE t DROP COLUMN v;
DESCRIBE dolt_history_t;
SELECT pk, w FROM dolt_history_t ORDER BY commit_date, pk;
CALL dolt_commit('-am', 'drop v');
CALL dolt_checkout('-b', 'other');
INSERT INTO t VALUES (2, 6);
CALL dolt_commit('-am', 'on other');
SELECT COUNT(*) FROM dolt_history_t;
CALL dolt_checkout('main');
SELECT COUNT(*) FROM dolt_history_t;
SELECT pk, w FROM dolt_history_t AS OF 'other' ORDER BY commit_date, pk;
DROP TABLE t;
SELECT COUNT(*) FROM dolt_history_t;
