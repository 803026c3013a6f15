-- dolt_reset's refusals: unknown revisions and tables, ancestors past the
-- first commit, a hash of no commit, --hard with --soft or extra args, bad flags.
CREATE TABLE t (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'base');
CALL dolt_reset('nosuch');
CALL dolt_reset('--hard', 'nosuch');
CALL dolt_reset('--soft', 'nosuch');
CALL dolt_reset('--hard', 't');
CALL dolt_reset('HEAD~5');
CALL dolt_reset('--hard', 'HEAD~5');
CALL dolt_reset('0123456789abcdefghijklmnopqrstuv');
CALL dolt_reset('--hard', '0123456789abcdefghijklmnopqrstuv');
CALL dolt_reset('--hard', '--soft');
CALL dolt_reset('--hard', 'HEAD', 'extra');
CALL dolt_reset('--bogus');
CALL dolt_reset(NULL);
CALL dolt_reset('');
SELECT message FROM dolt_log;
