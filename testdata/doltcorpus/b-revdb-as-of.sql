-- SELECT ... AS OF a revision: ancestor specs, a tag, a branch, a commit
-- hash in a variable, FOR SYSTEM_TIME AS OF, system tables as of a revision.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1);
CALL dolt_commit('-Am', 'first');
CALL dolt_tag('v1');
CALL dolt_branch('feature');
INSERT INTO t VALUES (2, 2);
CALL dolt_commit('-am', 'second');
UPDATE t SET v = 9;
SET @h = (SELECT commit_hash FROM dolt_log WHERE message = 'first');
SELECT * FROM t ORDER BY pk;
SELECT * FROM t AS OF 'HEAD' ORDER BY pk;
SELECT * FROM t AS OF 'HEAD~1' ORDER BY pk;
SELECT * FROM t AS OF 'HEAD^' ORDER BY pk;
SELECT * FROM t AS OF 'v1' ORDER BY pk;
SELECT * FROM t AS OF 'feature' ORDER BY pk;
SELECT * FROM t AS OF 'main' ORDER BY pk;
SELECT * FROM t AS OF @h ORDER BY pk;
SELECT * FROM t FOR SYSTEM_TIME AS OF 'v1' ORDER BY pk;
SELECT a.pk, a.v AS now_v, b.v AS then_v FROM t a LEFT JOIN t AS OF 'HEAD~1' b ON a.pk = b.pk ORDER BY a.pk;
SELECT message FROM dolt_log AS OF 'HEAD~1';
SHOW TABLES AS OF 'HEAD~2';
