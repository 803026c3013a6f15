-- dolt_tag's refusals: existing tags, unknown revisions, invalid names, no
-- arguments, too many, unknown flags, -m without a value; a tag named like a
-- branch.
CREATE TABLE t (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'first');
CALL dolt_tag('v1');
CALL dolt_tag('v1');
CALL dolt_tag('v2', 'nosuch');
CALL dolt_tag('v2', 'HEAD~5');
CALL dolt_tag();
CALL dolt_tag('bad name');
CALL dolt_tag('');
CALL dolt_tag('v2', 'HEAD', 'extra');
CALL dolt_tag('--bogus', 'x');
CALL dolt_tag('-m');
CALL dolt_tag('-v');
CALL dolt_tag('main');
SELECT tag_name, message FROM dolt_tags ORDER BY tag_name;
