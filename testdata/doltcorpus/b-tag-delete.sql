-- dolt_tag -d/--delete: one tag, several tags, unknown tags, no names; the
-- tagged commit stays reachable from its branch.
CREATE TABLE t (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'first');
CALL dolt_tag('v1');
CALL dolt_tag('v2');
CALL dolt_tag('v3');
CALL dolt_tag('-d', 'v1');
SELECT tag_name FROM dolt_tags ORDER BY tag_name;
CALL dolt_tag('-d', 'v1');
CALL dolt_tag('--delete', 'v2', 'v3');
SELECT tag_name FROM dolt_tags ORDER BY tag_name;
CALL dolt_tag('-d');
CALL dolt_tag('-d', 'nosuch');
CALL dolt_tag('v1');
SELECT tag_name FROM dolt_tags ORDER BY tag_name;
SELECT message FROM dolt_log;
