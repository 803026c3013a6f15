-- dolt_commit's short flags run together ('-Am', '-am', '-aAm') and joined
-- values ('-mtext', '--message=text'), and runs that put a value flag first.
CREATE TABLE t (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'Am');
INSERT INTO t VALUES (1);
CALL dolt_commit('-am', 'am');
CREATE TABLE u (pk INT PRIMARY KEY);
CALL dolt_commit('-aAm', 'aAm');
CALL dolt_commit('-Amx');
CALL dolt_commit('-mA', 'x');
CALL dolt_commit('-Ama', 'x');
CALL dolt_commit('--allow-empty', '-mjoined');
CALL dolt_commit('--allow-empty', '--message=equals');
CALL dolt_commit('--allow-empty', '--message', 'long');
SELECT message FROM dolt_log;
