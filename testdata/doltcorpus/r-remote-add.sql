-- dolt_remote('add'/'remove'): the dolt_remotes table after each, with
-- every column; the URL forms Dolt accepts and how it stores them (a
-- relative file:// path resolves against the database's folder, a bare
-- path or host-less URL goes to DoltHub's remote API); names are case
-- sensitive; remotes are not versioned (dolt_status stays empty).
CALL dolt_remote('add', 'origin', 'file://$REMOTE_DIR');
SELECT * FROM dolt_remotes;
SELECT name, url, JSON_TYPE(fetch_specs), JSON_LENGTH(fetch_specs), JSON_TYPE(params) FROM dolt_remotes;
SELECT * FROM dolt_status;
CALL dolt_remote('add', 'second', 'file://$REMOTE_DIR2/sub');
CALL dolt_remote('add', 'Origin', 'file://$REMOTE_DIR/other');
CALL dolt_remote('add', 'rel', 'file://relative/x');
CALL dolt_remote('add', 's3', 's3://bucket/prefix');
CALL dolt_remote('add', 'gs', 'gs://bucket/prefix');
CALL dolt_remote('add', 'aws', 'aws://[table:bucket]/db');
CALL dolt_remote('add', 'hub', 'dolthub/db');
CALL dolt_remote('add', 'hub2', 'https://doltremoteapi.dolthub.com/org/db');
CALL dolt_remote('add', 'host', 'http//x');
CALL dolt_remote('add', 'emptyurl', '');
CALL dolt_remote('add', 'dashed-name_1', 'file://$REMOTE_DIR/d');
SELECT * FROM dolt_remotes ORDER BY name;
CALL dolt_remote('remove', 'second');
CALL dolt_remote('rm', 'Origin');
SELECT name, url FROM dolt_remotes ORDER BY name;
SELECT COUNT(*) FROM dolt_remotes;
SELECT * FROM dolt_remotes WHERE name = 'origin';
SELECT * FROM dolt_status;
SELECT message FROM dolt_log;
CALL dolt_remote('remove', 'origin');
CALL dolt_remote('add', 'origin', 'file://$REMOTE_DIR2');
SELECT name, url FROM dolt_remotes WHERE name LIKE 'origin%';
