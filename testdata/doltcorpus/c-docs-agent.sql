-- dolt_docs with AGENT.md overridden among other docs: Dolt 2.3.1 then lists
-- its built-in AGENT.md again between rows (a Dolt bug, kept as recorded).
INSERT INTO dolt_docs VALUES ('README.md', '# hello');
INSERT INTO dolt_docs VALUES ('AGENT.md', 'mine');
SELECT doc_name, LEFT(doc_text, 20) FROM dolt_docs ORDER BY doc_name, doc_text;
DELETE FROM dolt_docs;
INSERT INTO dolt_docs VALUES ('README.md', '# hello');
INSERT INTO dolt_docs VALUES ('LICENSE.md', 'MIT');
INSERT INTO dolt_docs VALUES ('AGENT.md', 'mine');
INSERT INTO dolt_docs VALUES ('other.md', 'x');
SELECT doc_name, LEFT(doc_text, 20) FROM dolt_docs ORDER BY doc_name, doc_text;
SELECT COUNT(*) FROM dolt_docs;
SELECT COUNT(*) FROM dolt_docs WHERE doc_name = 'AGENT.md';
DELETE FROM dolt_docs WHERE doc_name = 'AGENT.md';
SELECT doc_name, LEFT(doc_text, 20) FROM dolt_docs ORDER BY doc_name, doc_text;
CALL dolt_commit('-Am', 'docs');
SELECT doc_name FROM dolt_docs AS OF 'HEAD' ORDER BY doc_name;
