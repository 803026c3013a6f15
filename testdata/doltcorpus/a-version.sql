-- dolt_version(): the version Dolt reports, its type, and with an argument.
SELECT dolt_version();
SELECT dolt_version() = dolt_version();
SELECT dolt_version() LIKE '%.%.%';
CREATE TABLE v AS SELECT dolt_version() AS ver;
SHOW CREATE TABLE v;
SELECT dolt_version('x');
