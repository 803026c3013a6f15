-- Querying dolt_log: AS OF a branch or revision, a branch database,
-- LIMIT/OFFSET, WHERE on refs, ORDER BY commit_order; AS OF an unknown branch.
CREATE TABLE t (pk INT PRIMARY KEY);
CREATE TABLE u (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'base', '--date', '2020-01-01T00:00:00');
CALL dolt_branch('feat');
INSERT INTO t VALUES (1);
CALL dolt_commit('-am', 'main t', '--date', '2020-01-02T00:00:00');
CALL dolt_checkout('feat');
INSERT INTO u VALUES (1);
CALL dolt_commit('-am', 'feat u', '--date', '2020-01-03T00:00:00');
CALL dolt_checkout('main');
CALL dolt_merge('feat', '-m', 'merge feat');
CALL dolt_tag('v1', 'HEAD~1');
SELECT message FROM dolt_log AS OF 'feat';
SELECT message FROM dolt_log AS OF 'HEAD~1';
SELECT message FROM `test/feat`.dolt_log;
SELECT message FROM dolt_log AS OF 'nosuch';
SELECT message FROM dolt_log LIMIT 2;
SELECT message FROM dolt_log LIMIT 1 OFFSET 2;
SELECT message, refs FROM dolt_log WHERE refs <> '' ORDER BY message;
SELECT message FROM dolt_log ORDER BY commit_order, message;
SELECT message FROM dolt_log WHERE commit_hash = hashof('feat');
