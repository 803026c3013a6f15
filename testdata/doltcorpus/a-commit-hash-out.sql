-- dolt_commit_hash_out(@var, args...): dolt_commit that also sets @var to the
-- new hash; its refusals and what @var holds after them.
CREATE TABLE t (pk INT PRIMARY KEY);
CALL dolt_add('.');
CALL dolt_commit_hash_out(@h, '-m', 'via hash_out');
SELECT @h = hashof('HEAD');
CALL dolt_commit_hash_out(@h2, '-m', 'nothing staged');
SELECT @h2;
CALL dolt_commit_hash_out(@h3, '--allow-empty', '-m', 'empty');
SELECT @h3 = hashof('HEAD'), @h3 = @h;
CALL dolt_commit_hash_out(@h4, '--skip-empty', '-m', 'skipped');
SELECT @h4, @h4 IS NULL;
CALL dolt_commit_hash_out(@h5);
CALL dolt_commit_hash_out();
CALL dolt_commit_hash_out(@h6, '--bogus');
SELECT message FROM dolt_log;
