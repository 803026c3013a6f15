-- dolt_clean's refusals: unknown tables, bad options (-n is not a short
-- form of --dry-run), NULL and ''.
CREATE TABLE n (pk INT PRIMARY KEY);
CALL dolt_clean('nosuch');
CALL dolt_clean('n', 'nosuch');
SHOW TABLES;
CALL dolt_clean('--bogus');
CALL dolt_clean('-n');
CALL dolt_clean(NULL);
CALL dolt_clean('');
CALL dolt_clean('N');
SHOW TABLES;
