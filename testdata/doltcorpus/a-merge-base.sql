-- dolt_merge_base(a, b): the common ancestor of two revisions, before and
-- after a merge, with itself; unknown revisions, NULL, arity.
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
SELECT dolt_merge_base('main', 'feat') = hashof('main~1');
SELECT dolt_merge_base('feat', 'main') = dolt_merge_base('main', 'feat');
CALL dolt_merge('feat', '-m', 'merge feat');
CALL dolt_tag('v1', 'HEAD~1');
SELECT dolt_merge_base('main', 'feat') = hashof('feat');
SELECT dolt_merge_base('HEAD~1', 'feat') = hashof('main~2');
SELECT dolt_merge_base('main', 'main') = hashof('main');
SELECT dolt_merge_base('v1', 'feat');
SELECT dolt_merge_base('nosuch', 'main');
SELECT dolt_merge_base('main', 'nosuch');
SELECT dolt_merge_base('main', 'HEAD~9');
SELECT dolt_merge_base(NULL, 'main');
SELECT dolt_merge_base('main');
