-- active_branch(): the session's branch, after dolt_checkout and a failed
-- checkout; with an argument.
SELECT active_branch();
CALL dolt_branch('feat');
CALL dolt_checkout('feat');
SELECT active_branch();
CALL dolt_checkout('nosuch');
SELECT active_branch();
CALL dolt_checkout('main');
SELECT active_branch(), active_branch() = 'main';
SELECT active_branch('x');
