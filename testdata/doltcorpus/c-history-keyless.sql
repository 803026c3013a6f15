-- dolt_history_<table> and dolt_diff_<table> for a keyless table, and
-- dolt_history of a table created after the first commits.
CALL dolt_commit('--allow-empty', '-m', 'empty');
CREATE TABLE k (a INT, b INT);
INSERT INTO k VALUES (1, 1), (1, 1);
CALL dolt_commit('-Am', 'first');
DESCRIBE dolt_history_k;
SELECT a, b FROM dolt_history_k ORDER BY a, b;
UPDATE k SET b = 2;
CALL dolt_commit('-am', 'second');
SELECT a, b, committer FROM dolt_history_k ORDER BY commit_date, b;
SELECT COUNT(DISTINCT commit_hash) FROM dolt_history_k;
SELECT to_a, to_b, from_a, from_b, diff_type FROM dolt_diff_k ORDER BY to_commit_date, diff_type;
SELECT * FROM dolt_blame_k;
