-- dolt_docs: the built-in AGENT.md row, inserting, updating and deleting
-- docs, how they show in dolt_status and dolt_diff and get committed.
DESCRIBE dolt_docs;
SELECT doc_name, LEFT(doc_text, 43) FROM dolt_docs;
SELECT * FROM dolt_status;
INSERT INTO dolt_docs VALUES ('README.md', '# hello');
INSERT INTO dolt_docs VALUES ('LICENSE.md', 'MIT');
SELECT doc_name, LEFT(doc_text, 43) FROM dolt_docs ORDER BY doc_name;
SELECT * FROM dolt_status;
SHOW TABLES;
CALL dolt_add('.');
CALL dolt_commit('-m', 'docs');
SELECT table_name, data_change, schema_change FROM dolt_diff;
UPDATE dolt_docs SET doc_text = '# hi' WHERE doc_name = 'README.md';
SELECT * FROM dolt_status;
SELECT to_doc_name, to_doc_text, from_doc_text, diff_type FROM dolt_diff_dolt_docs WHERE to_commit = 'WORKING';
DELETE FROM dolt_docs WHERE doc_name = 'LICENSE.md';
SELECT doc_name, LEFT(doc_text, 43) FROM dolt_docs ORDER BY doc_name;
INSERT INTO dolt_docs VALUES ('README.md', 'again');
INSERT INTO dolt_docs VALUES (NULL, 'x');
SHOW CREATE TABLE dolt_docs;
DELETE FROM dolt_docs;
SELECT doc_name, LEFT(doc_text, 43) FROM dolt_docs;
SELECT * FROM dolt_status;
