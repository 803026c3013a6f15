-- dolt_diff()'s errors: argument counts, NULL and non-string arguments,
-- unknown tables and revisions, ancestors that do not exist.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-Am', 'first');
SELECT * FROM dolt_diff();
SELECT * FROM dolt_diff('HEAD');
SELECT * FROM dolt_diff('HEAD', 't');
SELECT * FROM dolt_diff('HEAD', 'WORKING');
SELECT * FROM dolt_diff('HEAD', 'WORKING', 't', 'x');
SELECT * FROM dolt_diff('HEAD', 'WORKING', 'nope');
SELECT * FROM dolt_diff('nope', 'WORKING', 't');
SELECT * FROM dolt_diff('HEAD', 'nope', 't');
SELECT * FROM dolt_diff(NULL, 'WORKING', 't');
SELECT * FROM dolt_diff('HEAD', NULL, 't');
SELECT * FROM dolt_diff('HEAD', 'WORKING', NULL);
SELECT * FROM dolt_diff(1, 2, 3);
SELECT * FROM dolt_diff('HEAD~5', 'HEAD', 't');
SELECT * FROM dolt_diff('HEAD^^^', 'HEAD', 't');
SELECT * FROM dolt_diff('0123456789abcdefghijklmnopqrstuv', 'HEAD', 't');
SELECT * FROM dolt_diff('HEAD', 'WORKING', 'dolt_log');
SELECT * FROM DOLT_DIFF('HEAD', 'WORKING', 'T');
SELECT * FROM dolt_diff('HEAD', 'WORKING', 't') AS d WHERE d.nope = 1;
