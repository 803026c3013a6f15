-- dolt_log()'s refusals: unknown options (--author, --oneline, --graph),
-- unknown revisions, ranges beside other revisions, bad argument types.
CREATE TABLE t (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'base');
SELECT message FROM dolt_log('--author', 'root');
SELECT message FROM dolt_log('--oneline');
SELECT message FROM dolt_log('--graph');
SELECT message FROM dolt_log('--bogus');
SELECT message FROM dolt_log('nosuch');
SELECT message FROM dolt_log('nosuch..main');
SELECT message FROM dolt_log('main..nosuch');
SELECT message FROM dolt_log('main..main', 'HEAD');
SELECT message FROM dolt_log('main...main', '--not', 'HEAD');
SELECT message FROM dolt_log('HEAD~10');
SELECT message FROM dolt_log(NULL);
SELECT message FROM dolt_log('');
SELECT message FROM dolt_log(1);
SELECT message FROM dolt_log('0123456789abcdefghijklmnopqrstuv');
