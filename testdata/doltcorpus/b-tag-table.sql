-- The dolt_tags system table: its columns and rows (lightweight and with a
-- message), and tags in dolt_log's refs.
DESCRIBE dolt_tags;
SHOW CREATE TABLE dolt_tags;
SELECT * FROM dolt_tags;
CREATE TABLE t (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'first');
CALL dolt_tag('v1');
CALL dolt_tag('-m', 'release two', 'v2');
SELECT * FROM dolt_tags ORDER BY tag_name;
SELECT tag_name, tag_hash = (SELECT hash FROM dolt_branches WHERE name = 'main') AS at_main, tagger, email, message FROM dolt_tags ORDER BY tag_name;
SELECT message, refs FROM dolt_log;
