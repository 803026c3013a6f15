-- dolt_purge_dropped_databases(): dropped databases can no longer be
-- undropped; its argument check; several dropped databases.
CREATE DATABASE d2;
CREATE DATABASE d3;
CREATE TABLE d2.t (pk INT PRIMARY KEY);
DROP DATABASE d2;
DROP DATABASE d3;
CALL dolt_undrop();
CALL dolt_purge_dropped_databases('x');
CALL dolt_purge_dropped_databases();
CALL dolt_undrop('d2');
CALL dolt_undrop();
SHOW DATABASES;
CALL dolt_purge_dropped_databases();
CREATE DATABASE d4;
DROP DATABASE d4;
CALL dolt_undrop('d4');
SHOW DATABASES;
DROP DATABASE d4;
DROP DATABASE nope;
DROP DATABASE IF EXISTS nope;
CALL dolt_undrop('nope');
