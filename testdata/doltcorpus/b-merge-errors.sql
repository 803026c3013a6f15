-- dolt_merge's refusals: no branch, unknown branches and revisions, several
-- branches, empty names, unknown flags, --abort with nothing to abort.
CREATE TABLE t (pk INT PRIMARY KEY, v INT);
CALL dolt_commit('-Am', 'first');
CALL dolt_branch('feature');
CALL dolt_branch('other');
CALL dolt_merge();
CALL dolt_merge('nosuch');
CALL dolt_merge('HEAD~5');
CALL dolt_merge('');
CALL dolt_merge('feature', 'other');
CALL dolt_merge('--bogus', 'feature');
CALL dolt_merge('--abort');
CALL dolt_merge('--abort', 'feature');
SELECT * FROM dolt_merge_status;
SELECT message FROM dolt_log;
