-- dolt_branch's refusals: existing names, unknown start points, invalid
-- names, missing or extra arguments, unknown flags.
CREATE TABLE t (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'first');
CALL dolt_branch('b1');
CALL dolt_branch('b1');
CALL dolt_branch('main');
CALL dolt_branch('b2', 'nosuch');
CALL dolt_branch('b2', 'HEAD~10');
CALL dolt_branch();
CALL dolt_branch('');
CALL dolt_branch('bad name');
CALL dolt_branch('bad..name');
CALL dolt_branch('HEAD');
CALL dolt_branch('a:b');
CALL dolt_branch('x.lock');
CALL dolt_branch('-bad');
CALL dolt_branch('--bogus', 'x');
CALL dolt_branch('x', 'y', 'z');
SELECT name FROM dolt_branches ORDER BY name;
