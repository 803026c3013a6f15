-- dolt_log's refs column when several branches and tags (plain and
-- annotated) point at one commit, and at HEAD: how they are listed and ordered.
CREATE TABLE t (pk INT PRIMARY KEY);
CALL dolt_commit('-Am', 'base');
SELECT message, refs FROM dolt_log;
CALL dolt_branch('zeta');
CALL dolt_tag('v1');
SELECT message, refs FROM dolt_log;
CALL dolt_branch('alpha');
CALL dolt_tag('a_tag', '-m', 'annotated');
SELECT message, refs FROM dolt_log;
SELECT message, refs FROM dolt_log('--decorate', 'full');
CALL dolt_commit('--allow-empty', '-m', 'next');
SELECT message, refs FROM dolt_log;
CALL dolt_checkout('alpha');
SELECT message, refs FROM dolt_log;
