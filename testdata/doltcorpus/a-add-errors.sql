-- dolt_add's refusals: no argument, unknown tables (alone and beside a known
-- one), names in another case, system tables, bad options, NULL and ''.
CREATE TABLE t (pk INT PRIMARY KEY);
CALL dolt_add();
CALL dolt_add('nosuch');
CALL dolt_add('t', 'nosuch');
SELECT * FROM dolt_status ORDER BY table_name, staged;
CALL dolt_add('T');
CALL dolt_add('dolt_log');
CALL dolt_add('--bogus');
CALL dolt_add('-p');
CALL dolt_add(NULL);
CALL dolt_add('');
SELECT * FROM dolt_status ORDER BY table_name, staged;
