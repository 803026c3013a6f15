-- dolt_help: DESCRIBE, the procedures it documents, one entry's columns,
-- and writes it refuses.
DESCRIBE dolt_help;
SELECT COUNT(*) FROM dolt_help;
SELECT type, COUNT(*) FROM dolt_help GROUP BY type ORDER BY type;
SELECT name, type, short_description FROM dolt_help ORDER BY name;
SELECT name, synopsis FROM dolt_help WHERE name IN ('dolt_add', 'dolt_commit', 'dolt_gc') ORDER BY name;
SELECT name, JSON_TYPE(arguments) FROM dolt_help WHERE name = 'dolt_tag';
SELECT name FROM dolt_help WHERE name = 'dolt_nope';
INSERT INTO dolt_help VALUES ('x', 'procedure', '', '', '', '{}');
SELECT * FROM dolt_status;
