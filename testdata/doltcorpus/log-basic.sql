-- dolt_log after a few commits: columns, order, refs, parents.
DESCRIBE dolt_log;
CREATE TABLE t (pk INT PRIMARY KEY, v VARCHAR(10));
INSERT INTO t VALUES (1, 'a');
CALL dolt_commit('-Am', 'first');
INSERT INTO t VALUES (2, 'b');
CALL dolt_commit('-am', 'second');
SELECT commit_hash, committer, email, date, message, commit_order, parents, refs, signature, author, author_email, author_date FROM dolt_log;
SELECT message FROM dolt_log WHERE commit_order = 2;
SELECT COUNT(*) FROM dolt_log;
