-- The preview table functions' refusals: wrong argument counts, unknown
-- branches and tables, NULL arguments, use as a table.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1), (2, 2);
CALL dolt_commit('-Am', 'first');
CALL dolt_checkout('-b', 'feature');
UPDATE t SET v = 10 WHERE pk = 1;
INSERT INTO t VALUES (3, 30);
CALL dolt_commit('-am', 'f1');
CALL dolt_checkout('main');
UPDATE t SET v = 100 WHERE pk = 1;
INSERT INTO t VALUES (3, 300);
CALL dolt_commit('-am', 'm1');
SELECT * FROM dolt_preview_merge_conflicts_summary('main');
SELECT * FROM dolt_preview_merge_conflicts_summary('main', 'feature', 't');
SELECT * FROM dolt_preview_merge_conflicts_summary('main', 'nosuch');
SELECT * FROM dolt_preview_merge_conflicts_summary('nosuch', 'feature');
SELECT * FROM dolt_preview_merge_conflicts_summary(NULL, 'feature');
SELECT * FROM dolt_preview_merge_conflicts('main', 'feature');
SELECT * FROM dolt_preview_merge_conflicts('main', 'feature', 'nosuch');
SELECT * FROM dolt_preview_merge_conflicts('main', 'nosuch', 't');
SELECT * FROM dolt_preview_merge_conflicts('main', 'feature', NULL);
SELECT * FROM dolt_preview_merge_conflicts_summary;
