-- The revision forms dolt_diff() and dolt_diff_summary() accept: branch
-- names, tags, full hashes, HEAD^, branch~N, and case.
CREATE TABLE t (pk INT PRIMARY KEY);
INSERT INTO t VALUES (1);
CALL dolt_commit('-Am', 'one');
CALL dolt_tag('v1');
INSERT INTO t VALUES (2);
CALL dolt_commit('-am', 'two');
CALL dolt_branch('b2');
INSERT INTO t VALUES (3);
CALL dolt_commit('-am', 'three');
SET @one = (SELECT commit_hash FROM dolt_log WHERE message = 'one');
SELECT to_pk, diff_type FROM dolt_diff('v1', 'main', 't') ORDER BY to_pk;
SELECT to_pk, diff_type FROM dolt_diff(@one, 'b2', 't') ORDER BY to_pk;
SELECT to_pk, from_commit, to_commit FROM dolt_diff('HEAD^', 'HEAD', 't');
SELECT to_pk FROM dolt_diff('main~2', 'main~1', 't');
SELECT to_pk FROM dolt_diff('b2', 'main', 't');
SELECT to_pk FROM dolt_diff('B2', 'MAIN', 't');
SELECT to_pk FROM dolt_diff('v1..b2', 't');
SELECT to_pk FROM dolt_diff('refs/heads/b2', 'main', 't');
SELECT * FROM dolt_diff_summary('v1', 'HEAD');
SELECT * FROM dolt_diff('v2', 'HEAD', 't');
SELECT * FROM dolt_diff('HEAD~', 'HEAD~~~~', 't');
