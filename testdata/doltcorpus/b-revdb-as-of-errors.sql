-- AS OF errors: unknown revisions, too far back, empty strings, NULL,
-- numbers, a table that did not exist yet, a timestamp before any commit.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
CALL dolt_commit('-Am', 'first');
CREATE TABLE u (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'second');
SELECT * FROM t AS OF 'nosuch';
SELECT * FROM t AS OF 'HEAD~5';
SELECT * FROM t AS OF '';
SELECT * FROM t AS OF NULL;
SELECT * FROM t AS OF 123;
SELECT * FROM u AS OF 'HEAD~1';
SELECT * FROM t AS OF TIMESTAMP('2020-01-01 00:00:00');
SELECT * FROM t AS OF 'main~1';
SELECT * FROM nosuch AS OF 'HEAD';
SELECT COUNT(*) FROM u AS OF 'HEAD';
