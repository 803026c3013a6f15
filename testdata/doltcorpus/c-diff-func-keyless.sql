-- dolt_diff() and dolt_diff_stat() on a keyless table: duplicate rows,
-- updates shown as a removal and an addition.
CREATE TABLE k (a INT, b VARCHAR(5));
INSERT INTO k VALUES (1, 'x'), (1, 'x'), (2, 'y');
CALL dolt_commit('-Am', 'first');
SELECT to_a, to_b, from_a, from_b, diff_type FROM dolt_diff('HEAD~1', 'HEAD', 'k') ORDER BY to_a, to_b;
UPDATE k SET b = 'z' WHERE a = 2;
DELETE FROM k WHERE a = 1 LIMIT 1;
INSERT INTO k VALUES (3, 'w');
SELECT to_a, to_b, from_a, from_b, diff_type FROM dolt_diff('HEAD', 'WORKING', 'k') ORDER BY diff_type, COALESCE(to_a, from_a), COALESCE(to_b, from_b);
SELECT * FROM dolt_diff_stat('HEAD', 'WORKING', 'k');
SELECT * FROM dolt_diff_summary('HEAD', 'WORKING', 'k');
SELECT statement FROM dolt_patch('HEAD', 'WORKING', 'k') ORDER BY statement_order;
SELECT COUNT(*) FROM k;
