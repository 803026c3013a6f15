-- dolt_history_<table>: every row as of every commit, with commit_hash,
-- committer and commit_date; uncommitted rows do not show.
CREATE TABLE t (pk INT PRIMARY KEY, v VARCHAR(10));
DESCRIBE dolt_history_t;
SELECT * FROM dolt_history_t;
INSERT INTO t VALUES (1, 'a'), (2, 'b');
CALL dolt_commit('-Am', 'first');
UPDATE t SET v = 'bb' WHERE pk = 2;
CALL dolt_commit('-am', 'second');
DELETE FROM t WHERE pk = 1;
CALL dolt_commit('-am', 'third');
INSERT INTO t VALUES (3, 'c');
SELECT * FROM dolt_history_t ORDER BY commit_date, pk, v;
SELECT pk, v, committer FROM dolt_history_t WHERE commit_hash = (SELECT commit_hash FROM dolt_log WHERE message = 'first') ORDER BY pk;
SELECT pk, COUNT(*) FROM dolt_history_t GROUP BY pk ORDER BY pk;
SELECT DISTINCT v FROM dolt_history_t WHERE pk = 2 ORDER BY v;
SELECT COUNT(DISTINCT commit_hash) FROM dolt_history_t;
SHOW CREATE TABLE dolt_history_t;
SELECT * FROM dolt_history_nope;
