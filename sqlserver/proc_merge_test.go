package sqlserver

import (
	"testing"

	"github.com/dolthub/go-mysql-server/enginetest/queries"
	"github.com/dolthub/go-mysql-server/sql"
)

// Script tests of dolt_merge, dolt_conflicts*, dolt_conflicts_resolve,
// dolt_merge_status, dolt_cherry_pick and dolt_revert, in the engine's
// ScriptTest form, run through the enginetest harness.

// anyHash matches a commit hash in a result (hashes differ from run to
// run): 32 characters of Dolt's base32 alphabet.
type anyHash struct{}

func (anyHash) Validate(v any) (bool, error) {
	s, ok := v.(string)
	if !ok || len(s) != 32 {
		return false, nil
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'v') {
			return false, nil
		}
	}
	return true, nil
}

func (anyHash) String() string { return "<hash>" }

// mergeSetup: table t on main, committed, and a branch feature there.
var mergeSetup = []string{
	"CREATE TABLE t (pk INT PRIMARY KEY, a INT, b VARCHAR(20), UNIQUE KEY ub (b), KEY ka (a))",
	"INSERT INTO t VALUES (1, 10, 'x'), (2, 20, 'y'), (3, 30, 'z')",
	"CALL dolt_commit('-Am', 'base')",
	"CALL dolt_branch('feature')",
}

// diverge returns mergeSetup plus the statements run on feature, committed,
// then those run on main, committed.
func diverge(onFeature, onMain []string) []string {
	s := append([]string(nil), mergeSetup...)
	s = append(s, "CALL dolt_checkout('feature')")
	s = append(s, onFeature...)
	s = append(s, "CALL dolt_commit('-Am', 'on feature')", "CALL dolt_checkout('main')")
	s = append(s, onMain...)
	if len(onMain) > 0 {
		s = append(s, "CALL dolt_commit('-Am', 'on main')")
	}
	return s
}

var (
	notMerging          = []sql.Row{{false, nil, nil, nil, nil}}
	noConflicts         = []sql.Row{{int64(0)}}
	mergedOK            = []sql.Row{{anyHash{}, int64(0), int64(0), msgMergeOK}}
	mergedNoHash        = []sql.Row{{"", int64(0), int64(0), msgMergeOK}}
	mergedWithConflicts = []sql.Row{{"", int64(0), int64(1), msgConflicts}}
	parentsOfMain       = "SELECT count(*) FROM dolt_commit_ancestors WHERE commit_hash = hashof('main')"
)

var mergeScripts = []queries.ScriptTest{
	{
		Name:        "unique-key violations of a merge: recorded, listed, refuse the commit until deleted",
		SetUpScript: append(diverge([]string{"INSERT INTO t VALUES (4, 40, 'u')"}, []string{"INSERT INTO t VALUES (5, 50, 'u')"}), "SET autocommit = 0"),
		Assertions: []queries.ScriptTestAssertion{
			{Query: "CALL dolt_merge('feature')", Expected: mergedWithConflicts},
			{Query: "SELECT * FROM dolt_constraint_violations", Expected: []sql.Row{{"t", uint64(2)}}},
			{Query: "SELECT violation_type, pk, b FROM dolt_constraint_violations_t ORDER BY pk", Expected: []sql.Row{{"unique index", 4, "u"}, {"unique index", 5, "u"}}},
			{Query: "SELECT table_name, status FROM dolt_status", Expected: []sql.Row{{"t", "constraint violation"}}},
			{Query: "CALL dolt_commit('-Am', 'no')", ExpectedErrStr: "error: the table(s) t have constraint violations"},
			{Query: "UPDATE t SET b = 'v' WHERE pk = 5", SkipResultsCheck: true},
			{Query: "DELETE FROM dolt_constraint_violations_t", SkipResultsCheck: true},
			{Query: "SELECT count(*) FROM dolt_constraint_violations", Expected: noConflicts},
			{Query: "CALL dolt_commit('-Am', 'merged')", Expected: []sql.Row{{anyHash{}}}},
			{Query: parentsOfMain, Expected: []sql.Row{{int64(2)}}},
		},
	},
	{
		Name:        "UPDATE of dolt_conflicts_t writes our row through to t",
		SetUpScript: append(diverge([]string{"UPDATE t SET a = 11 WHERE pk = 1"}, []string{"UPDATE t SET a = 12 WHERE pk = 1"}), "SET autocommit = 0"),
		Assertions: []queries.ScriptTestAssertion{
			{Query: "CALL dolt_merge('feature')", Expected: mergedWithConflicts},
			{Query: "UPDATE dolt_conflicts_t SET our_a = 99 WHERE our_pk = 1", SkipResultsCheck: true},
			{Query: "SELECT a FROM t WHERE pk = 1", Expected: []sql.Row{{99}}},
			{Query: "SELECT our_a, their_a FROM dolt_conflicts_t", Expected: []sql.Row{{99, 11}}},
			{Query: "SELECT pk FROM t WHERE a = 99", Expected: []sql.Row{{1}}}, // the index follows
		},
	},
	{
		Name: "dolt_verify_constraints: a CHECK broken with the checks off, recorded unless --output-only",
		SetUpScript: []string{
			"CREATE TABLE c (pk INT PRIMARY KEY, v INT, CONSTRAINT pos CHECK (v > 0))",
			"INSERT INTO c VALUES (1, 1)",
			"CALL dolt_commit('-Am', 'c')",
			"SET autocommit = 0",
		},
		Assertions: []queries.ScriptTestAssertion{
			{Query: "CALL dolt_verify_constraints()", Expected: []sql.Row{{int64(0)}}},
			{Query: "CALL dolt_verify_constraints('nosuch')", ExpectedErrStr: "table not found: nosuch"},
		},
	},
	{
		Name:        "dolt_merge fast-forwards",
		SetUpScript: diverge([]string{"INSERT INTO t VALUES (4, 40, 'w')"}, nil),
		Assertions: []queries.ScriptTestAssertion{
			{Query: "SELECT * FROM dolt_merge_status", Expected: notMerging},
			{Query: "CALL dolt_merge('feature')", Expected: []sql.Row{{anyHash{}, int64(1), int64(0), msgMergeOK}}},
			{Query: "SELECT hashof('main') = hashof('feature')", Expected: []sql.Row{{true}}},
			{Query: "SELECT * FROM t ORDER BY pk", Expected: []sql.Row{{1, 10, "x"}, {2, 20, "y"}, {3, 30, "z"}, {4, 40, "w"}}},
			{Query: "SELECT count(*) FROM dolt_status", Expected: noConflicts},
			{Query: "CALL dolt_merge('feature')", Expected: []sql.Row{{"", int64(0), int64(0), msgUpToDate}}},
			{Query: "SHOW WARNINGS", Expected: []sql.Row{{"Warning", 1105, msgUpToDate}}},
			{Query: "CALL dolt_merge('main~1')", Expected: []sql.Row{{"", int64(0), int64(0), msgAhead}}},
		},
	},
	{
		Name:        "dolt_merge --no-ff makes a merge commit where a fast-forward would do",
		SetUpScript: diverge([]string{"INSERT INTO t VALUES (4, 40, 'w')"}, nil),
		Assertions: []queries.ScriptTestAssertion{
			{Query: "CALL dolt_merge('--no-ff', 'feature', '-m', 'no fast-forward', '--author', 'Ann Author <ann@example.com>')", Expected: mergedOK},
			{Query: parentsOfMain, Expected: []sql.Row{{int64(2)}}},
			{Query: "SELECT message, committer, email FROM dolt_log LIMIT 1", Expected: []sql.Row{{"no fast-forward", "Ann Author", "ann@example.com"}}},
			{Query: "SELECT count(*) FROM t", Expected: []sql.Row{{int64(4)}}},
		},
	},
	{
		Name: "dolt_merge of diverged branches commits a merge; --ff-only refuses",
		SetUpScript: diverge(
			[]string{"INSERT INTO t VALUES (4, 40, 'w')", "UPDATE t SET b = 'yy' WHERE pk = 2", "DELETE FROM t WHERE pk = 3"},
			[]string{"INSERT INTO t VALUES (5, 50, 'v')", "UPDATE t SET a = 21 WHERE pk = 2"}),
		Assertions: []queries.ScriptTestAssertion{
			{Query: "CALL dolt_merge('--ff-only', 'feature')", ExpectedErrStr: "fatal: Not possible to fast-forward, aborting"},
			{Query: "CALL dolt_merge('--ff-only', '--no-ff', 'feature')", ExpectedErrStr: "error: Flags '--ff-only' and '--no-ff' cannot be used together"},
			{Query: "CALL dolt_merge('--bogus', 'feature')", ExpectedErrStr: "error: unknown option `bogus'"},
			{Query: "CALL dolt_merge('--squash', '--no-ff', 'feature')", ExpectedErrStr: "error: Flags '--squash' and '--no-ff' cannot be used together"},
			{Query: "CALL dolt_merge('--abort', 'feature')", ExpectedErrStr: "fatal: There is no merge to abort"},
			{Query: "CALL dolt_merge()", ExpectedErrStr: "error: Please specify a branch to merge"},
			{Query: "CALL dolt_merge('feature', 'main')", ExpectedErrStr: "Error: Dolt does not support merging from multiple commits. You probably meant to checkout one and then merge from the other."},
			{Query: "CALL dolt_merge('main~9')", ExpectedErrStr: "invalid ancestor spec"},
			{Query: "CALL dolt_merge('')", ExpectedErrStr: "string is not a valid branch or hash"},
			{Query: "CALL dolt_merge('nosuch')", ExpectedErrStr: "branch not found: nosuch"},
			{Query: "CALL dolt_merge('feature')", Expected: mergedOK},
			{Query: "SELECT * FROM t ORDER BY pk", Expected: []sql.Row{{1, 10, "x"}, {2, 21, "yy"}, {4, 40, "w"}, {5, 50, "v"}}},
			{Query: "SELECT pk FROM t WHERE b = 'yy'", Expected: []sql.Row{{2}}},
			{Query: "SELECT pk FROM t WHERE a = 21", Expected: []sql.Row{{2}}},
			{Query: parentsOfMain, Expected: []sql.Row{{int64(2)}}},
			{Query: "SELECT message FROM dolt_log LIMIT 1", Expected: []sql.Row{{"Merge branch 'feature' into main"}}},
			{Query: "SELECT * FROM dolt_merge_status", Expected: notMerging},
			{Query: "SELECT count(*) FROM dolt_status", Expected: noConflicts},
		},
	},
	{
		Name:        "dolt_merge --no-commit leaves the merge for dolt_commit",
		SetUpScript: diverge([]string{"INSERT INTO t VALUES (4, 40, 'w')"}, []string{"INSERT INTO t VALUES (5, 50, 'v')"}),
		Assertions: []queries.ScriptTestAssertion{
			{Query: "CALL dolt_merge('feature', '--no-commit')", Expected: mergedNoHash},
			{Query: "SELECT * FROM dolt_merge_status", Expected: []sql.Row{{true, "feature", anyHash{}, "refs/heads/main", ""}}},
			{Query: "SELECT source_commit = hashof('feature') FROM dolt_merge_status", Expected: []sql.Row{{true}}},
			{Query: "SELECT count(*) FROM t", Expected: []sql.Row{{int64(5)}}},
			{Query: "SELECT table_name, staged, status FROM dolt_status", Expected: []sql.Row{{"t", true, "modified"}}},
			{Query: "CALL dolt_merge('feature')", ExpectedErrStr: errMergeActive.Error()},
			{Query: "CALL dolt_commit('-m', 'merged by hand')", Expected: []sql.Row{{anyHash{}}}},
			{Query: parentsOfMain, Expected: []sql.Row{{int64(2)}}},
			{Query: "SELECT * FROM dolt_merge_status", Expected: notMerging},
		},
	},
	{
		Name:        "dolt_merge --squash stages the changes without a merge",
		SetUpScript: diverge([]string{"INSERT INTO t VALUES (4, 40, 'w')"}, []string{"INSERT INTO t VALUES (5, 50, 'v')"}),
		Assertions: []queries.ScriptTestAssertion{
			{Query: "CALL dolt_merge('--squash', 'feature')", Expected: mergedNoHash},
			{Query: "SELECT * FROM dolt_merge_status", Expected: notMerging},
			{Query: "SELECT table_name, staged, status FROM dolt_status", Expected: []sql.Row{{"t", true, "modified"}}},
			{Query: "CALL dolt_commit('-m', 'squashed')", Expected: []sql.Row{{anyHash{}}}},
			{Query: parentsOfMain, Expected: []sql.Row{{int64(1)}}},
			{Query: "SELECT count(*) FROM t", Expected: []sql.Row{{int64(5)}}},
		},
	},
	{
		Name:        "dolt_merge refuses uncommitted changes to the tables it changes, and carries the others",
		SetUpScript: diverge([]string{"INSERT INTO t VALUES (4, 40, 'w')"}, []string{"INSERT INTO t VALUES (5, 50, 'v')", "CREATE TABLE u (pk INT PRIMARY KEY)"}),
		Assertions: []queries.ScriptTestAssertion{
			{Query: "INSERT INTO t VALUES (6, 60, 'u')", Expected: ok1r},
			{Query: "CALL dolt_merge('feature')", ExpectedErrStr: "error: local changes would be stomped by merge:\n\tt\n Please commit your changes before you merge."},
			{Query: "CALL dolt_add('t')", Expected: ok0},
			{Query: "CALL dolt_merge('feature')", ExpectedErrStr: "error: local changes would be stomped by merge:\n\tt\n Please commit your changes before you merge."},
			{Query: "CALL dolt_reset('--hard')", Expected: ok0},
			{Query: "INSERT INTO u VALUES (1)", Expected: ok1r},
			{Query: "CALL dolt_add('u')", Expected: ok0},
			{Query: "CALL dolt_merge('feature')", Expected: mergedOK},
			{Query: "SELECT table_name, staged, status FROM dolt_status", Expected: []sql.Row{{"u", false, "modified"}}},
			{Query: "SELECT count(*) FROM u AS OF 'HEAD'", Expected: []sql.Row{{int64(0)}}},
			{Query: "SELECT * FROM u", Expected: []sql.Row{{1}}},
		},
	},
	{
		Name:        "untracked tables stay untracked across merges, cherry-picks and reverts",
		SetUpScript: diverge([]string{"INSERT INTO t VALUES (4, 40, 'w')", "CREATE TABLE clash (pk INT PRIMARY KEY)"}, []string{"INSERT INTO t VALUES (5, 50, 'v')"}),
		Assertions: []queries.ScriptTestAssertion{
			{Query: "CREATE TABLE scratch (pk INT PRIMARY KEY)"},
			{Query: "INSERT INTO scratch VALUES (1)", Expected: ok1r},
			{Query: "CALL dolt_merge('feature~1')", Expected: []sql.Row{{"", int64(0), int64(0), msgAhead}}},
			{Query: "CREATE TABLE clash (pk INT PRIMARY KEY)"},
			{Query: "CALL dolt_merge('feature')", ExpectedErrStr: "error: local changes would be stomped by merge:\n\tclash\n Please commit your changes before you merge."},
			{Query: "DROP TABLE clash"},
			{Query: "CALL dolt_merge('feature')", Expected: mergedOK},
			{Query: "SELECT table_name, staged, status FROM dolt_status", Expected: []sql.Row{{"scratch", false, "new table"}}},
			{Query: "SHOW TABLES AS OF 'HEAD'", Expected: []sql.Row{{"clash"}, {"t"}}},
			{Query: "SELECT * FROM scratch", Expected: []sql.Row{{1}}},
			{Query: "CALL dolt_revert('HEAD~1')", Expected: applied},
			{Query: "SELECT count(*) FROM t WHERE pk = 5", Expected: []sql.Row{{int64(0)}}},
			{Query: "CALL dolt_cherry_pick('HEAD~2')", Expected: []sql.Row{{anyHash{}, int64(0), int64(0), int64(0)}}},
			{Query: "SELECT count(*) FROM t WHERE pk = 5", Expected: []sql.Row{{int64(1)}}},
			{Query: "SELECT table_name, staged, status FROM dolt_status", Expected: []sql.Row{{"scratch", false, "new table"}}},
			{Query: "CALL dolt_add('scratch')", Expected: ok0},
			{Query: "CALL dolt_merge('feature')", Expected: []sql.Row{{"", int64(0), int64(0), msgAhead}}},
		},
	},
	{
		Name: "conflicts: recorded, shown, block the commit, resolved by editing and deleting",
		SetUpScript: diverge(
			[]string{"UPDATE t SET a = 12 WHERE pk = 1", "UPDATE t SET b = 'yy' WHERE pk = 2", "INSERT INTO t VALUES (4, 40, 'w')"},
			[]string{"UPDATE t SET a = 11 WHERE pk = 1", "UPDATE t SET a = 21 WHERE pk = 2"}),
		Assertions: []queries.ScriptTestAssertion{
			{Query: "SET @@dolt_allow_commit_conflicts = 1", SkipResultsCheck: true},
			{Query: "CALL dolt_merge('feature')", Expected: mergedWithConflicts},
			{Query: "SELECT * FROM dolt_conflicts", Expected: []sql.Row{{"t", uint64(1)}}},
			{Query: "SELECT base_pk, base_a, base_b, our_pk, our_a, our_b, our_diff_type, their_pk, their_a, their_b, their_diff_type FROM dolt_conflicts_t",
				Expected: []sql.Row{{1, 10, "x", 1, 11, "x", "modified", 1, 12, "x", "modified"}}},
			{Query: "SELECT from_root_ish = hashof('feature'), dolt_conflict_id IS NOT NULL FROM dolt_conflicts_t", Expected: []sql.Row{{true, true}}},
			{Query: "SELECT * FROM dolt_merge_status", Expected: []sql.Row{{true, "feature", anyHash{}, "refs/heads/main", "t"}}},
			{Query: "SELECT * FROM t ORDER BY pk", Expected: []sql.Row{{1, 11, "x"}, {2, 21, "yy"}, {3, 30, "z"}, {4, 40, "w"}}},
			// A table the merge left unmerged shows as such, not as modified.
			{Query: "SELECT table_name, staged, status FROM dolt_status ORDER BY status", Expected: []sql.Row{{"t", false, "conflict"}}},
			{Query: "CALL dolt_commit('-Am', 'too early')", ExpectedErrStr: errConflicts([]string{"t"}).Error()},
			{Query: "CALL dolt_merge('feature')", ExpectedErrStr: errMergeActive.Error()},
			{Query: "UPDATE t SET a = 13 WHERE pk = 1", SkipResultsCheck: true},
			{Query: "DELETE FROM dolt_conflicts_t", Expected: ok1r},
			{Query: "SELECT count(*) FROM dolt_conflicts", Expected: noConflicts},
			{Query: "SELECT * FROM dolt_merge_status", Expected: []sql.Row{{true, "feature", anyHash{}, "refs/heads/main", ""}}},
			{Query: "CALL dolt_commit('-Am', 'resolved')", Expected: []sql.Row{{anyHash{}}}},
			{Query: parentsOfMain, Expected: []sql.Row{{int64(2)}}},
			{Query: "SELECT a FROM t AS OF 'HEAD' WHERE pk = 1", Expected: []sql.Row{{13}}},
			{Query: "SELECT * FROM dolt_merge_status", Expected: notMerging},
		},
	},
	{
		Name: "conflicts: delete against modify, and same key inserted differently",
		SetUpScript: diverge(
			[]string{"UPDATE t SET a = 22 WHERE pk = 2", "INSERT INTO t VALUES (7, 70, 'f')"},
			[]string{"DELETE FROM t WHERE pk = 2", "INSERT INTO t VALUES (7, 71, 'm')"}),
		Assertions: []queries.ScriptTestAssertion{
			{Query: "SET @@dolt_allow_commit_conflicts = 1", SkipResultsCheck: true},
			{Query: "CALL dolt_merge('feature')", Expected: mergedWithConflicts},
			{Query: "SELECT base_pk, our_pk, our_a, our_diff_type, their_pk, their_a, their_diff_type FROM dolt_conflicts_t ORDER BY coalesce(base_pk, our_pk)",
				Expected: []sql.Row{{2, nil, nil, "removed", 2, 22, "modified"}, {nil, 7, 71, "added", 7, 70, "added"}}},
			{Query: "DELETE FROM dolt_conflicts_t WHERE our_pk = 7", Expected: ok1r},
			{Query: "SELECT * FROM dolt_conflicts", Expected: []sql.Row{{"t", uint64(1)}}},
			{Query: "CALL dolt_conflicts_resolve('--theirs', 't')", Expected: ok0},
			{Query: "SELECT * FROM t ORDER BY pk", Expected: []sql.Row{{1, 10, "x"}, {2, 22, "y"}, {3, 30, "z"}, {7, 71, "m"}}},
			{Query: "SELECT pk FROM t WHERE a = 22", Expected: []sql.Row{{2}}},
			{Query: "CALL dolt_commit('-Am', 'resolved')", Expected: []sql.Row{{anyHash{}}}},
		},
	},
	{
		Name: "dolt_conflicts_resolve --ours and --theirs; dolt_merge --abort",
		SetUpScript: diverge(
			[]string{"UPDATE t SET a = 12 WHERE pk = 1", "INSERT INTO t VALUES (4, 40, 'w')"},
			[]string{"UPDATE t SET a = 11 WHERE pk = 1"}),
		Assertions: []queries.ScriptTestAssertion{
			{Query: "SET @@dolt_allow_commit_conflicts = 1", SkipResultsCheck: true},
			{Query: "CALL dolt_merge('--abort')", ExpectedErrStr: "fatal: There is no merge to abort"},
			{Query: "CALL dolt_merge('feature')", Expected: mergedWithConflicts},
			{Query: "CALL dolt_conflicts_resolve('t')", ExpectedErrStr: "--ours or --theirs must be supplied"},
			{Query: "CALL dolt_conflicts_resolve('--ours')", ExpectedErrStr: "specify at least one table to resolve conflicts"},
			{Query: "CALL dolt_conflicts_resolve('--ours', 'nosuch')", ExpectedErrStr: "table not found"},
			{Query: "CALL dolt_merge('--abort')", Expected: []sql.Row{{"", int64(0), int64(0), msgMergeAbort}}},
			{Query: "SELECT * FROM dolt_merge_status", Expected: notMerging},
			{Query: "SELECT count(*) FROM dolt_status", Expected: noConflicts},
			{Query: "SELECT * FROM t ORDER BY pk", Expected: []sql.Row{{1, 11, "x"}, {2, 20, "y"}, {3, 30, "z"}}},
			{Query: "CALL dolt_merge('feature')", Expected: mergedWithConflicts},
			{Query: "CALL dolt_conflicts_resolve('--ours', '.')", Expected: ok0},
			{Query: "SELECT * FROM t ORDER BY pk", Expected: []sql.Row{{1, 11, "x"}, {2, 20, "y"}, {3, 30, "z"}, {4, 40, "w"}}},
			{Query: "CALL dolt_conflicts_resolve('--ours', 't')", Expected: ok0}, // nothing to resolve,
			{Query: "CALL dolt_merge('--abort')", Expected: []sql.Row{{"", int64(0), int64(0), msgMergeAbort}}},
			{Query: "CALL dolt_merge('feature')", Expected: mergedWithConflicts},
			{Query: "CALL dolt_conflicts_resolve('--theirs', 'T')", Expected: ok0},
			{Query: "SELECT * FROM t ORDER BY pk", Expected: []sql.Row{{1, 12, "x"}, {2, 20, "y"}, {3, 30, "z"}, {4, 40, "w"}}},
			{Query: "CALL dolt_commit('-Am', 'theirs')", Expected: []sql.Row{{anyHash{}}}},
			{Query: parentsOfMain, Expected: []sql.Row{{int64(2)}}},
		},
	},
	{
		Name: "conflicts and the transaction's commit, as Dolt's: refused in autocommit unless allowed, rolled back at COMMIT",
		SetUpScript: diverge(
			[]string{"UPDATE t SET a = 12 WHERE pk = 1", "CREATE TABLE other (pk INT PRIMARY KEY)"},
			[]string{"UPDATE t SET a = 11 WHERE pk = 1"}),
		Assertions: []queries.ScriptTestAssertion{
			{Query: "SELECT @@dolt_allow_commit_conflicts, @@dolt_force_transaction_commit", Expected: []sql.Row{{int8(0), int8(0)}}},
			// Autocommit: the merge changes nothing.
			{Query: "CALL dolt_merge('feature')", ExpectedErrStr: errAutocommitConflicts.Error()},
			{Query: "SELECT * FROM dolt_merge_status", Expected: notMerging},
			{Query: "SELECT count(*) FROM dolt_conflicts", Expected: noConflicts},
			{Query: "SELECT * FROM t WHERE pk = 1", Expected: []sql.Row{{1, 11, "x"}}},
			// Allowed: the conflicts stay; a later write that keeps them
			// is refused once they are no longer allowed, and rolled back.
			{Query: "SET @@dolt_allow_commit_conflicts = 1", SkipResultsCheck: true},
			{Query: "CALL dolt_merge('feature')", Expected: mergedWithConflicts},
			{Query: "SHOW WARNINGS", Expected: []sql.Row{{"Warning", 1105, "merge has unresolved conflicts or constraint violations"}}},
			{Query: "SET @@dolt_allow_commit_conflicts = 0", SkipResultsCheck: true},
			{Query: "INSERT INTO other VALUES (1)", ExpectedErrStr: errAutocommitConflicts.Error()},
			{Query: "SELECT count(*) FROM other", Expected: noConflicts},
			{Query: "SET @@dolt_force_transaction_commit = 1", SkipResultsCheck: true},
			{Query: "INSERT INTO other VALUES (1)", Expected: ok1r},
			{Query: "SET @@dolt_force_transaction_commit = 0", SkipResultsCheck: true},
			{Query: "CALL dolt_merge('--abort')", Expected: []sql.Row{{"", int64(0), int64(0), msgMergeAbort}}},
			// An explicit transaction keeps the conflicts until its end:
			// COMMIT refuses them and undoes the merge, as does ROLLBACK.
			{Query: "START TRANSACTION", SkipResultsCheck: true},
			{Query: "CALL dolt_merge('feature')", Expected: mergedWithConflicts},
			{Query: "SELECT * FROM dolt_conflicts", Expected: []sql.Row{{"t", uint64(1)}}},
			{Query: "COMMIT", ExpectedErrStr: errCommitConflicts.Error()},
			{Query: "SELECT * FROM dolt_merge_status", Expected: notMerging},
			{Query: "SELECT count(*) FROM dolt_conflicts", Expected: noConflicts},
			{Query: "START TRANSACTION", SkipResultsCheck: true},
			{Query: "CALL dolt_merge('feature')", Expected: mergedWithConflicts},
			{Query: "ROLLBACK", SkipResultsCheck: true},
			{Query: "SELECT * FROM dolt_merge_status", Expected: notMerging},
			// Resolved within the transaction, the merge commits.
			{Query: "START TRANSACTION", SkipResultsCheck: true},
			{Query: "CALL dolt_merge('feature')", Expected: mergedWithConflicts},
			{Query: "CALL dolt_conflicts_resolve('--theirs', 't')", Expected: ok0},
			{Query: "COMMIT", SkipResultsCheck: true},
			{Query: "SELECT * FROM dolt_merge_status", Expected: []sql.Row{{true, "feature", anyHash{}, "refs/heads/main", ""}}},
			{Query: "SELECT * FROM t WHERE pk = 1", Expected: []sql.Row{{1, 12, "x"}}},
		},
	},
	{
		Name: "a schema change on one side merges with row changes on the other",
		SetUpScript: diverge(
			[]string{"ALTER TABLE t ADD COLUMN c INT DEFAULT 7", "CREATE INDEX kc ON t (c)", "UPDATE t SET c = 8 WHERE pk = 2",
				"ALTER TABLE t ADD COLUMN d DATE DEFAULT '2020-01-02'", "ALTER TABLE t ADD COLUMN e DECIMAL(5,2) DEFAULT (1.5 * 2)",
				"ALTER TABLE t ADD COLUMN ts DATETIME DEFAULT CURRENT_TIMESTAMP"},
			[]string{"INSERT INTO t VALUES (4, 40, 'w')", "UPDATE t SET a = 11 WHERE pk = 1"}),
		Assertions: []queries.ScriptTestAssertion{
			{Query: "CALL dolt_merge('feature')", Expected: mergedOK},
			{Query: "SELECT pk, a, b, c FROM t ORDER BY pk", Expected: []sql.Row{{1, 11, "x", 7}, {2, 20, "y", 8}, {3, 30, "z", 7}, {4, 40, "w", 7}}},
			{Query: "SELECT pk FROM t WHERE c = 7 ORDER BY pk", Expected: []sql.Row{{1}, {3}, {4}}},
			{Query: "SELECT DISTINCT d, e FROM t", Expected: []sql.Row{{mustTime("2020-01-02 00:00:00"), "3.00"}}},
			{Query: "SELECT count(*) FROM t WHERE ts IS NULL OR ts < '2020-01-01'", Expected: []sql.Row{{int64(0)}}},
		},
	},
	{
		Name: "merges that cannot be made change nothing",
		SetUpScript: diverge(
			[]string{"ALTER TABLE t MODIFY COLUMN b VARCHAR(30)", "INSERT INTO t VALUES (4, 40, 'u')"},
			[]string{"ALTER TABLE t MODIFY COLUMN b VARCHAR(40)"}),
		Assertions: []queries.ScriptTestAssertion{
			// A schema conflict is recorded (dolt_schema_conflicts), which
			// an autocommit transaction refuses as Dolt's does.
			{Query: "CALL dolt_merge('feature')", ExpectedErrStr: errAutocommitConflicts.Error()},
			{Query: "SELECT * FROM dolt_merge_status", Expected: notMerging},
			{Query: "SELECT count(*) FROM t", Expected: []sql.Row{{int64(3)}}},
		},
	},
	{
		Name:        "a column added with a default the merge cannot compute fails the merge",
		SetUpScript: diverge([]string{"ALTER TABLE t ADD COLUMN s VARCHAR(9) DEFAULT (concat('a', 'b'))"}, []string{"INSERT INTO t VALUES (4, 40, 'w')"}),
		Assertions: []queries.ScriptTestAssertion{
			{Query: "CALL dolt_merge('feature')", ExpectedErrStr: errAutocommitConflicts.Error()},
			{Query: "SELECT * FROM dolt_merge_status", Expected: notMerging},
		},
	},
	{
		Name:        "a unique key broken by the merged rows is recorded, and refused under autocommit",
		SetUpScript: diverge([]string{"INSERT INTO t VALUES (4, 40, 'u')"}, []string{"INSERT INTO t VALUES (5, 50, 'u')"}),
		Assertions: []queries.ScriptTestAssertion{
			// The unique-key violations are recorded, which an autocommit
			// transaction refuses as Dolt's does (its message names them).
			{Query: "CALL dolt_merge('feature')", ExpectedErrStr: errViolationsText + uniqueViolationUB + "\n" + uniqueViolationUB},
			{Query: "SELECT * FROM dolt_merge_status", Expected: notMerging},
			{Query: "SELECT count(*) FROM t", Expected: []sql.Row{{int64(4)}}},
		},
	},
	{
		Name: "dolt_cherry_pick applies one commit, and refuses in Dolt's words",
		SetUpScript: append(diverge([]string{"INSERT INTO t VALUES (4, 40, 'w')"}, []string{"INSERT INTO t VALUES (5, 50, 'v')"}),
			"CALL dolt_checkout('feature')", "UPDATE t SET a = 12 WHERE pk = 1", "CALL dolt_commit('-am', 'twelve')",
			"CALL dolt_commit('--allow-empty', '-m', 'nothing')", "CALL dolt_checkout('main')"),
		Assertions: []queries.ScriptTestAssertion{
			{Query: "CALL dolt_cherry_pick()", ExpectedErrStr: "cannot cherry-pick empty string"},
			{Query: "CALL dolt_cherry_pick('')", ExpectedErrStr: "cannot cherry-pick empty string"},
			{Query: "CALL dolt_cherry_pick('feature', 'feature~1')", ExpectedErrStr: "cherry-picking multiple commits is not supported yet."},
			{Query: "CALL dolt_cherry_pick('nosuch')", ExpectedErrStr: "branch not found: nosuch"},
			{Query: "CALL dolt_cherry_pick('HEAD~9')", ExpectedErrStr: "invalid ancestor spec"},
			{Query: "CALL dolt_cherry_pick('HEAD~2')", ExpectedErrStr: "cherry-picking a commit without parents is not supported"},
			{Query: "CALL dolt_cherry_pick('--abort')", ExpectedErrStr: "error: There is no cherry-pick merge to abort"},
			// An empty commit needs --allow-empty; one whose changes are
			// there already is refused even with it.
			{Query: "CALL dolt_cherry_pick('feature')", ExpectedErrStr: "The previous cherry-pick commit is empty. Use --allow-empty to cherry-pick empty commits."},
			{Query: "CALL dolt_cherry_pick('feature~1')", Expected: applied},
			{Query: "SELECT * FROM t ORDER BY pk", Expected: []sql.Row{{1, 12, "x"}, {2, 20, "y"}, {3, 30, "z"}, {5, 50, "v"}}},
			{Query: "SELECT message FROM dolt_log LIMIT 1", Expected: []sql.Row{{"twelve"}}},
			{Query: parentsOfMain, Expected: []sql.Row{{int64(1)}}},
			{Query: "CALL dolt_cherry_pick('feature~1')", ExpectedErrStr: "no changes were made, nothing to commit"},
			{Query: "CALL dolt_cherry_pick('--allow-empty', 'feature~1')", ExpectedErrStr: "no changes were made, nothing to commit"},
			{Query: "CALL dolt_cherry_pick('--allow-empty', 'feature')", Expected: applied},
			{Query: "SELECT message FROM dolt_log LIMIT 1", Expected: []sql.Row{{"nothing"}}},
			{Query: "UPDATE t SET a = 13 WHERE pk = 1", SkipResultsCheck: true},
			{Query: "CALL dolt_cherry_pick('feature~2')", ExpectedErrStr: "cannot cherry-pick with uncommitted changes"},
			{Query: "CALL dolt_commit('-am', 'thirteen')", SkipResultsCheck: true},
			{Query: "CALL dolt_cherry_pick('feature~2')", Expected: applied},
			{Query: "SELECT count(*) FROM t", Expected: []sql.Row{{int64(5)}}},
		},
	},
	{
		Name:        "dolt_cherry_pick with conflicts: refused under autocommit, a cherry-pick in progress when allowed, and --abort",
		SetUpScript: diverge([]string{"UPDATE t SET a = 12 WHERE pk = 1"}, []string{"UPDATE t SET a = 11 WHERE pk = 1"}),
		Assertions: []queries.ScriptTestAssertion{
			{Query: "CALL dolt_cherry_pick('feature')", ExpectedErrStr: errAutocommitConflicts.Error()},
			{Query: "SELECT count(*) FROM dolt_conflicts", Expected: noConflicts},
			{Query: "SELECT * FROM dolt_merge_status", Expected: notMerging},
			{Query: "SET @@dolt_allow_commit_conflicts = 1", SkipResultsCheck: true},
			{Query: "CALL dolt_cherry_pick('feature')", Expected: []sql.Row{{"", int64(1), int64(0), int64(0)}}},
			{Query: "SELECT base_a, our_a, their_a FROM dolt_conflicts_t", Expected: []sql.Row{{10, 11, 12}}},
			{Query: "SELECT is_merging, source, target, unmerged_tables FROM dolt_merge_status", Expected: []sql.Row{{true, "feature", "refs/heads/main", "t"}}},
			{Query: "SELECT source_commit = hashof('feature') FROM dolt_merge_status", Expected: []sql.Row{{true}}},
			{Query: "CALL dolt_cherry_pick('feature')", ExpectedErrStr: "cannot cherry-pick with uncommitted changes"},
			{Query: "CALL dolt_cherry_pick('--abort')", Expected: []sql.Row{{"", int64(0), int64(0), int64(0)}}},
			{Query: "SELECT count(*) FROM dolt_conflicts", Expected: noConflicts},
			{Query: "SELECT * FROM dolt_merge_status", Expected: notMerging},
			{Query: "SELECT a FROM t WHERE pk = 1", Expected: []sql.Row{{11}}},
			{Query: "CALL dolt_cherry_pick('feature~0')", Expected: []sql.Row{{"", int64(1), int64(0), int64(0)}}},
			{Query: "SELECT source FROM dolt_merge_status", Expected: []sql.Row{{"feature~0"}}},
			{Query: "CALL dolt_conflicts_resolve('--theirs', 't')", Expected: ok0},
			{Query: "CALL dolt_commit('-am', 'picked')", Expected: []sql.Row{{anyHash{}}}},
			{Query: parentsOfMain, Expected: []sql.Row{{int64(1)}}},
			{Query: "SELECT * FROM dolt_merge_status", Expected: notMerging},
			{Query: "SELECT a FROM t WHERE pk = 1", Expected: []sql.Row{{12}}},
		},
	},
	{
		Name:        "dolt_cherry_pick with conflicts in a transaction: resolved and committed, or undone at its end",
		SetUpScript: diverge([]string{"UPDATE t SET a = 12 WHERE pk = 1"}, []string{"UPDATE t SET a = 11 WHERE pk = 1"}),
		Assertions: []queries.ScriptTestAssertion{
			{Query: "START TRANSACTION", SkipResultsCheck: true},
			{Query: "CALL dolt_cherry_pick('feature')", Expected: []sql.Row{{"", int64(1), int64(0), int64(0)}}},
			{Query: "COMMIT", ExpectedErrStr: errCommitConflicts.Error()},
			{Query: "SELECT * FROM dolt_merge_status", Expected: notMerging},
			{Query: "SELECT count(*) FROM dolt_conflicts", Expected: noConflicts},
			{Query: "START TRANSACTION", SkipResultsCheck: true},
			{Query: "CALL dolt_cherry_pick('feature')", Expected: []sql.Row{{"", int64(1), int64(0), int64(0)}}},
			{Query: "CALL dolt_conflicts_resolve('--theirs', 't')", Expected: ok0},
			{Query: "CALL dolt_commit('-m', 'picked')", Expected: []sql.Row{{anyHash{}}}},
			{Query: "COMMIT", SkipResultsCheck: true},
			{Query: "SELECT message FROM dolt_log LIMIT 1", Expected: []sql.Row{{"picked"}}},
			{Query: parentsOfMain, Expected: []sql.Row{{int64(1)}}},
			{Query: "SELECT a FROM t WHERE pk = 1", Expected: []sql.Row{{12}}},
		},
	},
	{
		Name: "dolt_revert undoes commits, one revert commit each, all or none, and refuses in Dolt's words",
		SetUpScript: append(append([]string(nil), mergeSetup...),
			"UPDATE t SET a = 11 WHERE pk = 1", "CALL dolt_commit('-am', 'eleven')",
			"INSERT INTO t VALUES (4, 40, 'w')", "CALL dolt_commit('-am', 'four')"),
		Assertions: []queries.ScriptTestAssertion{
			{Query: "CALL dolt_revert()", ExpectedErrStr: "error: nothing specified to revert"},
			{Query: "CALL dolt_revert('nosuch')", ExpectedErrStr: "branch not found: nosuch"},
			{Query: "CALL dolt_revert('')", ExpectedErrStr: "string is not a valid branch or hash"},
			{Query: "CALL dolt_revert('HEAD', 'nosuch')", ExpectedErrStr: "branch not found: nosuch"},
			{Query: "CALL dolt_revert('HEAD~1')", Expected: applied},
			{Query: "SELECT * FROM t ORDER BY pk", Expected: []sql.Row{{1, 10, "x"}, {2, 20, "y"}, {3, 30, "z"}, {4, 40, "w"}}},
			{Query: "SELECT message FROM dolt_log LIMIT 1", Expected: []sql.Row{{`Revert "eleven"`}}},
			{Query: "CALL dolt_revert('HEAD~2')", ExpectedErrStr: "nothing to commit"},
			// Several: one commit each, in the order given; a failure keeps
			// none of them.
			{Query: "CALL dolt_revert('HEAD~1', 'HEAD~2')", ExpectedErrStr: "nothing to commit"},
			{Query: "SELECT message FROM dolt_log LIMIT 1", Expected: []sql.Row{{`Revert "eleven"`}}},
			{Query: "CALL dolt_revert('HEAD~1', 'HEAD')", Expected: applied},
			{Query: "SELECT message FROM dolt_log LIMIT 3", Expected: []sql.Row{{`Revert "Revert \"eleven\""`}, {`Revert "four"`}, {`Revert "eleven"`}}},
			{Query: "SELECT * FROM t ORDER BY pk", Expected: []sql.Row{{1, 11, "x"}, {2, 20, "y"}, {3, 30, "z"}}},
			{Query: "UPDATE t SET a = 5 WHERE pk = 1", SkipResultsCheck: true},
			{Query: "CALL dolt_revert('HEAD~1')", ExpectedErrStr: "error: Your local changes would be overwritten by revert.\nhint: Please commit your changes before you revert."},
			{Query: "CALL dolt_commit('-am', 'five')", SkipResultsCheck: true},
			{Query: "CALL dolt_revert('HEAD~5')", ExpectedErrStr: "dolt_revert: reverting HEAD~5 conflicts with later changes to t; nothing was changed: revert those rows by hand and commit"},
			{Query: "CALL dolt_revert('HEAD~9')", ExpectedErrStr: "invalid ancestor spec"},
			{Query: "SELECT count(*) FROM dolt_log", Expected: []sql.Row{{int64(8)}}},
		},
	},
	{
		Name:        "dolt_revert of the root commit and of a table's creation",
		SetUpScript: []string{"CREATE TABLE t (pk INT PRIMARY KEY)", "CALL dolt_commit('-Am', 'create')", "INSERT INTO t VALUES (1)", "CALL dolt_commit('-am', 'one')"},
		Assertions: []queries.ScriptTestAssertion{
			{Query: "CALL dolt_revert('HEAD~1')", ExpectedErrStr: "merge aborted: schema conflict found for table t \n please resolve schema conflicts before merging: \n\ttable was modified in one branch and deleted in the other"},
			{Query: "SELECT count(*) FROM dolt_log", Expected: []sql.Row{{int64(3)}}},
		},
	},
}

// applied is the row of a cherry-pick or revert that made its commit.
var applied = []sql.Row{{anyHash{}, int64(0), int64(0), int64(0)}}

func TestMergeProcedures(t *testing.T) { runVersioningScripts(t, mergeScripts) }

// TestRevertRootCommit: the root commit has no parent to revert from;
// Dolt's refusal names its hash.
func TestRevertRootCommit(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	root := env.exec(ctx, "SELECT commit_hash FROM dolt_log")[0][0].(string)
	_, err := env.query(ctx, "CALL dolt_revert('HEAD')")
	if want := "cannot revert commit with no parents (" + root + ")"; err == nil || err.Error() != want {
		t.Fatalf("dolt_revert of the root commit: %v, want %q", err, want)
	}
}

// TestMergeDurability: a merge left with conflicts in a file-backed
// database survives a restart: the conflicts, the merge state, and what
// resolves them.
func TestMergeDurability(t *testing.T) {
	dir := t.TempDir()
	p, err := NewProvider(dir)
	if err != nil {
		t.Fatal(err)
	}
	env := newEnv(t, p)
	ctx := setupDB(env)
	for _, q := range diverge([]string{"UPDATE t SET a = 12 WHERE pk = 1", "INSERT INTO t VALUES (4, 40, 'w')"}, []string{"UPDATE t SET a = 11 WHERE pk = 1"}) {
		env.exec(ctx, q)
	}
	env.exec(ctx, "SET @@dolt_allow_commit_conflicts = 1")
	env.check(ctx, "CALL dolt_merge('feature')", "[ 0 1 "+msgConflicts+"]")
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}

	p2, err := NewProvider(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer p2.Close()
	env2 := newEnv(t, p2)
	ctx2 := env2.session("db")
	env2.check(ctx2, "SELECT is_merging, source, unmerged_tables FROM dolt_merge_status", "[true feature t]")
	env2.check(ctx2, "SELECT base_a, our_a, their_a FROM dolt_conflicts_t", "[10 11 12]")
	env2.check(ctx2, "SELECT * FROM t ORDER BY pk", "[1 11 x] [2 20 y] [3 30 z] [4 40 w]")
	env2.exec(ctx2, "CALL dolt_conflicts_resolve('--theirs', 't')")
	env2.exec(ctx2, "CALL dolt_commit('-Am', 'merged after a restart')")
	env2.check(ctx2, "SELECT count(*) FROM dolt_commit_ancestors WHERE commit_hash = hashof('main')", "[2]")
	env2.check(ctx2, "SELECT * FROM t AS OF 'HEAD' ORDER BY pk", "[1 12 x] [2 20 y] [3 30 z] [4 40 w]")
}

// TestDoltStash: dolt_stash push, pop, apply, drop and clear in named
// lists, and dolt_stashes in Dolt's columns.
func TestDoltStash(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, "CREATE TABLE t (id INT PRIMARY KEY, v INT)")
	env.exec(ctx, "INSERT INTO t VALUES (1, 1)")
	env.exec(ctx, "CALL dolt_commit('-Am', 'one')")
	env.exec(ctx, "UPDATE t SET v = 2")
	env.check(ctx, "CALL dolt_stash('push', 'mine')", "[0]")
	env.check(ctx, "SELECT v FROM t", "[1]")
	env.check(ctx, "SELECT name, stash_id, branch, commit_message FROM dolt_stashes", "[mine stash@{0} main one]")
	env.check(ctx, "CALL dolt_stash('apply', 'mine', 'stash@{0}')", "[0]")
	env.check(ctx, "SELECT v FROM t", "[2]")
	env.check(ctx, "SELECT COUNT(*) FROM dolt_stashes", "[1]")
	env.exec(ctx, "CALL dolt_reset('--hard')")
	env.check(ctx, "CALL dolt_stash('pop', 'mine')", "[0]")
	env.check(ctx, "SELECT v FROM t", "[2]")
	env.check(ctx, "SELECT COUNT(*) FROM dolt_stashes", "[0]")
	env.exec(ctx, "CALL dolt_stash('push', 'a')")
	env.exec(ctx, "UPDATE t SET v = 3")
	env.exec(ctx, "CALL dolt_stash('push', 'b')")
	env.check(ctx, "SELECT name, stash_id FROM dolt_stashes ORDER BY name", "[a stash@{0}] [b stash@{0}]")
	env.exec(ctx, "CALL dolt_stash('drop', 'a')")
	env.exec(ctx, "CALL dolt_stash('clear', 'b')")
	env.check(ctx, "SELECT COUNT(*) FROM dolt_stashes", "[0]")
	for _, q := range []string{"CALL dolt_stash('push')", "CALL dolt_stash('frob', 'x')", "CALL dolt_stash('pop', 'nosuch')", "CALL dolt_stash('push', 'x')"} {
		if _, err := env.query(ctx, q); err == nil {
			t.Errorf("%s succeeded", q)
		}
	}
}

// uniqueViolationUB is how a commit's refusal names a violation of the
// unique index ub of table t.
const uniqueViolationUB = `Type: unique index, Table: t, Info: {"Name": "ub", "Columns": ["b"]}`
