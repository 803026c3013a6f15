-- dolt_json_diff(): the paths at which two JSON documents differ, with
-- nested objects and arrays, types, NULLs and the errors.
SELECT * FROM dolt_json_diff('{"a":1,"b":[1,2]}', '{"a":2,"c":3,"b":[1]}');
SELECT * FROM dolt_json_diff('{"a":{"x":1,"y":[1,{"z":2}]}}', '{"a":{"x":1,"y":[1,{"z":3}],"w":null}}');
SELECT * FROM dolt_json_diff('[1,2,3]', '[1,3]');
SELECT * FROM dolt_json_diff('[1]', '[1,[2,3],{"k":"v"}]');
SELECT * FROM dolt_json_diff('{"a":1}', '{"a":"1"}');
SELECT * FROM dolt_json_diff('{"a":1}', '{"a":1.0}');
SELECT * FROM dolt_json_diff('{"a":true}', '{"a":false}');
SELECT * FROM dolt_json_diff('{"a":[1]}', '{"a":{"0":1}}');
SELECT * FROM dolt_json_diff('1', '2');
SELECT * FROM dolt_json_diff('"s"', '{"a":1}');
SELECT * FROM dolt_json_diff('{}', '{}');
SELECT * FROM dolt_json_diff('{"a.b":1,"c d":2}', '{"a.b":2}');
SELECT * FROM dolt_json_diff(NULL, '{"a":1}');
SELECT * FROM dolt_json_diff('{"a":1}', NULL);
SELECT * FROM dolt_json_diff('{"a":', '{}');
SELECT * FROM dolt_json_diff('{}');
SELECT diff_type, path FROM dolt_json_diff('{"b":1,"a":1}', '{"c":1}') ORDER BY path;
CREATE TABLE j (id INT PRIMARY KEY, doc JSON);
INSERT INTO j VALUES (1, '{"n":1,"tags":["x"]}'), (2, '{"n":2,"tags":["x","y"]}');
SELECT d.* FROM j AS a JOIN j AS b ON a.id = 1 AND b.id = 2, LATERAL dolt_json_diff(a.doc, b.doc) AS d;
SELECT * FROM dolt_json_diff((SELECT doc FROM j WHERE id = 1), (SELECT doc FROM j WHERE id = 2));
