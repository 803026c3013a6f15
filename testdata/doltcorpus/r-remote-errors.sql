-- dolt_remote's errors: a duplicate name, URLs it cannot parse, invalid
-- names, missing and extra arguments, unknown subcommands and options,
-- removing an unknown remote; a NULL name or URL is taken as an empty
-- string and is added.
CALL dolt_remote('add', 'origin', 'file://$REMOTE_DIR');
CALL dolt_remote('add', 'origin', 'file://$REMOTE_DIR');
CALL dolt_remote('add', 'origin', 'file://$REMOTE_DIR2');
CALL dolt_remote('add', 'bad', 'not a url');
CALL dolt_remote('add', 'bad', 'file:relative');
CALL dolt_remote('add', 'a/b', 'file://$REMOTE_DIR');
CALL dolt_remote('add', 'a b', 'file://$REMOTE_DIR');
CALL dolt_remote('add', 'a.b', 'file://$REMOTE_DIR');
CALL dolt_remote('add', 'x');
CALL dolt_remote('add');
CALL dolt_remote('add', 'x', 'file://$REMOTE_DIR', 'extra');
CALL dolt_remote();
CALL dolt_remote('remove');
CALL dolt_remote('remove', 'nope');
CALL dolt_remote('rm', 'nope');
CALL dolt_remote('remove', 'origin', 'extra');
CALL dolt_remote('ADD', 'x', 'file://$REMOTE_DIR');
CALL dolt_remote('rename', 'origin', 'x');
CALL dolt_remote('-v');
CALL dolt_remote('add', '--aws-region', 'us-west-2', 'x', 'aws://[t:b]/db');
CALL dolt_remote('add', NULL, 'file://$REMOTE_DIR');
CALL dolt_remote('add', 'x', NULL);
SELECT name, url FROM dolt_remotes ORDER BY name;
CALL dolt_remote('remove', 'origin');
CALL dolt_remote('remove', 'origin');
SELECT * FROM dolt_remotes;
