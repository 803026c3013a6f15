-- dolt_preview_merge_conflicts_summary: data and schema conflicts per table
-- without merging; both directions, no conflicts, revisions.
CREATE TABLE s (pk INT PRIMARY KEY, v INT);
CREATE TABLE clean (pk INT PRIMARY KEY, v INT);
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
CALL dolt_checkout('feature');
ALTER TABLE s MODIFY v VARCHAR(10);
INSERT INTO clean VALUES (1, 1);
CALL dolt_commit('-am', 'f2');
CALL dolt_checkout('main');
ALTER TABLE s MODIFY v BIGINT;
CALL dolt_commit('-am', 'm2');
SELECT * FROM dolt_preview_merge_conflicts_summary('main', 'feature') ORDER BY `table`;
SELECT * FROM dolt_preview_merge_conflicts_summary('feature', 'main') ORDER BY `table`;
SELECT * FROM dolt_preview_merge_conflicts_summary('main', 'main');
SELECT * FROM dolt_preview_merge_conflicts_summary('HEAD~1', 'feature~1');
SELECT * FROM dolt_conflicts;
SELECT * FROM dolt_merge_status;
SELECT * FROM dolt_status;
