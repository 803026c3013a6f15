package sqlserver

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dolthub/go-mysql-server/enginetest"
	"github.com/dolthub/go-mysql-server/enginetest/queries"
	"github.com/dolthub/go-mysql-server/enginetest/scriptgen/setup"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
)

// Script tests of the versioning procedures, functions and system tables,
// in the engine's ScriptTest form and run through the enginetest harness.
// Hashes vary from run to run, so results that hold one are checked
// through dolt_log, hashof() and friends.

// runVersioningScripts runs scripts, each on a fresh engine with mydb.
func runVersioningScripts(t *testing.T, scripts []queries.ScriptTest) {
	for _, s := range scripts {
		h := &harness{procedures: testProcedures}
		h.Setup(setup.MydbData)
		enginetest.TestScript(t, h, s)
	}
}

var (
	ok0  = []sql.Row{{int64(0)}}
	ok1r = []sql.Row{{types.NewOkResult(1)}}
)

var addCommitScripts = []queries.ScriptTest{
	{
		Name: "dolt_add and dolt_commit",
		SetUpScript: []string{
			"CREATE TABLE t (pk INT PRIMARY KEY, v INT)",
			"INSERT INTO t VALUES (1, 1)",
		},
		Assertions: []queries.ScriptTestAssertion{
			{Query: "SELECT table_name, staged, status FROM dolt_status", Expected: []sql.Row{{"t", false, "new table"}}},
			{Query: "CALL dolt_commit('-m', 'nothing staged')", ExpectedErrStr: "nothing to commit"},
			{Query: "CALL dolt_add('t')", Expected: ok0},
			{Query: "SELECT table_name, staged, status FROM dolt_status", Expected: []sql.Row{{"t", true, "new table"}}},
			{Query: "CALL dolt_commit('-m', 'add t')", SkipResultsCheck: true},
			{Query: "SELECT count(*) FROM dolt_status", Expected: []sql.Row{{int64(0)}}},
			{Query: "SELECT message FROM dolt_log ORDER BY commit_order DESC LIMIT 1", Expected: []sql.Row{{"add t"}}},
			{Query: "SELECT count(*) FROM dolt_log", Expected: []sql.Row{{int64(2)}}},
			{Query: "CALL dolt_commit('-m', 'again')", ExpectedErrStr: "nothing to commit"},
			{Query: "CALL dolt_commit('--skip-empty', '-m', 'skipped')", Expected: []sql.Row{}},
			{Query: "CALL dolt_commit('--allow-empty', '-m', 'empty')", SkipResultsCheck: true},
			{Query: "SELECT message FROM dolt_log ORDER BY commit_order DESC LIMIT 1", Expected: []sql.Row{{"empty"}}},
			{Query: "CALL dolt_commit('--amend', '-m', 'empty, amended')", SkipResultsCheck: true},
			{Query: "SELECT message FROM dolt_log ORDER BY commit_order DESC", Expected: []sql.Row{{"empty, amended"}, {"add t"}, {"Initialize data repository"}}},
			{Query: "UPDATE t SET v = 2", SkipResultsCheck: true},
			{Query: "CREATE TABLE u (pk INT PRIMARY KEY)"},
			{Query: "SELECT table_name, staged, status FROM dolt_status ORDER BY table_name", Expected: []sql.Row{{"t", false, "modified"}, {"u", false, "new table"}}},
			{Query: "CALL dolt_commit('-am', 'tracked only')", SkipResultsCheck: true},
			{Query: "SELECT table_name, staged, status FROM dolt_status", Expected: []sql.Row{{"u", false, "new table"}}},
			{Query: "CALL dolt_commit('-Am', 'all', '--author', 'Ann Author <ann@example.com>', '--date', '2020-01-02T03:04:05Z')", SkipResultsCheck: true},
			{Query: "SELECT committer, email, date, message FROM dolt_log ORDER BY commit_order DESC LIMIT 1", Expected: []sql.Row{{"Ann Author", "ann@example.com", mustTime("2020-01-02 03:04:05"), "all"}}},
			{Query: "SELECT count(*) FROM dolt_status", Expected: []sql.Row{{int64(0)}}},
			{Query: "CALL dolt_add()", ExpectedErrStr: "Nothing specified, nothing added. Maybe you wanted to say 'dolt add .'?"},
			{Query: "CALL dolt_add('nope')", ExpectedErrStr: "error: the table(s) nope do not exist"},
			{Query: "CALL dolt_commit('-x')", ExpectedErrStr: "error: unknown option `x'"},
			{Query: "CALL dolt_commit('-m')", ExpectedErrStr: "error: no value for option `message'"},
			{Query: "CALL dolt_commit('--allow-empty')", ExpectedErrStr: "Must provide commit message."},
			{Query: "CALL dolt_commit('-m', 'x', '--author', 'nobody')", ExpectedErrStr: "Author not formatted correctly. Use 'Name <author@example.com>' format"},
			{Query: "CALL dolt_commit('-m', 'x', '--date', 'yesterday')", ExpectedErrStr: "error: 'yesterday' is not in a supported format."},
		},
	},
	{
		Name: "dolt_add('.') and -A stage everything, staged changes survive more edits",
		SetUpScript: []string{
			"CREATE TABLE a (pk INT PRIMARY KEY)",
			"CREATE TABLE b (pk INT PRIMARY KEY)",
		},
		Assertions: []queries.ScriptTestAssertion{
			{Query: "CALL dolt_add('.')", Expected: ok0},
			{Query: "INSERT INTO a VALUES (1)", Expected: ok1r},
			{Query: "SELECT table_name, staged, status FROM dolt_status ORDER BY staged, table_name", Expected: []sql.Row{{"a", false, "modified"}, {"a", true, "new table"}, {"b", true, "new table"}}},
			{Query: "CALL dolt_commit('-m', 'staged only')", SkipResultsCheck: true},
			{Query: "SELECT table_name, staged, status FROM dolt_status", Expected: []sql.Row{{"a", false, "modified"}}},
			{Query: "SELECT count(*) FROM a AS OF 'HEAD'", Expected: []sql.Row{{int64(0)}}},
			{Query: "CALL dolt_add('-A')", Expected: ok0},
			{Query: "CALL dolt_commit('-m', 'rows')", SkipResultsCheck: true},
			{Query: "SELECT count(*) FROM a AS OF 'HEAD'", Expected: []sql.Row{{int64(1)}}},
		},
	},
	{
		Name: "a commit inside a transaction takes the transaction's writes",
		SetUpScript: []string{
			"CREATE TABLE t (pk INT PRIMARY KEY)",
			"CALL dolt_commit('-Am', 'create t')",
		},
		Assertions: []queries.ScriptTestAssertion{
			{Query: "START TRANSACTION"},
			{Query: "INSERT INTO t VALUES (1), (2)", Expected: []sql.Row{{types.NewOkResult(2)}}},
			{Query: "CALL dolt_commit('-am', 'two rows')", SkipResultsCheck: true},
			{Query: "COMMIT"},
			{Query: "SELECT count(*) FROM t AS OF 'HEAD'", Expected: []sql.Row{{int64(2)}}},
			{Query: "SELECT count(*) FROM dolt_status", Expected: []sql.Row{{int64(0)}}},
		},
	},
	{
		Name: "a commit is refused while conflicts are unresolved",
		SetUpScript: []string{
			"CREATE TABLE t (pk INT PRIMARY KEY)",
		},
		Assertions: []queries.ScriptTestAssertion{
			{Query: "CALL verso_test_add_conflict('t')", Expected: ok0},
			{Query: "SELECT table_name, staged, status FROM dolt_status ORDER BY status", Expected: []sql.Row{{"t", false, "conflict"}}}, // unmerged, not new
			{Query: "CALL dolt_commit('-Am', 'with conflicts')", ExpectedErrStr: "error: the table(s) t are in conflict"},
		},
	},
}

func mustTime(s string) time.Time {
	t, err := time.Parse("2006-01-02 15:04:05", s)
	if err != nil {
		panic(fmt.Sprintf("test time %q: %v", s, err))
	}
	return t
}

// testProcedures are the procedures the versioning scripts add to their
// providers: verso_test_add_conflict writes a conflicts/<table> entry into
// the working root, as dolt_merge does for a conflicted table.
var testProcedures = []sql.ExternalStoredProcedureDetails{
	{Name: "verso_test_add_conflict", Schema: statusSchema,
		Function: func(ctx *sql.Context, table string) (sql.RowIter, error) {
			d, err := procBranch(ctx)
			if err != nil {
				return nil, err
			}
			err = d.updateBranch(ctx, func(s *verso.BranchState) (*verso.BranchChange, error) {
				w, err := s.Working.Edit(ctx, commitgraph.RootEdit{Name: commitgraph.ConflictsPrefix + table, Addr: s.Working.Address()})
				if err != nil {
					return nil, err
				}
				return &verso.BranchChange{Working: w, Staged: s.Staged}, nil
			})
			if err != nil {
				return nil, err
			}
			return statusRow(0), nil
		}},
}

func TestVersioningAddCommit(t *testing.T) { runVersioningScripts(t, addCommitScripts) }

var branchScripts = []queries.ScriptTest{
	{
		Name: "dolt_branch and dolt_checkout",
		SetUpScript: []string{
			"CREATE TABLE t (pk INT PRIMARY KEY)",
			"CALL dolt_commit('-Am', 'create t')",
		},
		Assertions: []queries.ScriptTestAssertion{
			{Query: "SELECT active_branch()", Expected: []sql.Row{{"main"}}},
			{Query: "CALL dolt_branch('feature')", Expected: ok0},
			{Query: "SELECT name, hash = hashof('main'), latest_commit_message, dirty FROM dolt_branches ORDER BY name", Expected: []sql.Row{{"feature", true, "create t", false}, {"main", true, "create t", false}}},
			{Query: "CALL dolt_branch('feature')", ExpectedErrStr: "fatal: A branch named 'feature' already exists."},
			{Query: "CALL dolt_checkout('feature')", Expected: []sql.Row{{int64(0), "Switched to branch 'feature'"}}},
			{Query: "SELECT active_branch(), @@mydb_head_ref", Expected: []sql.Row{{"feature", "refs/heads/feature"}}},
			{Query: "INSERT INTO t VALUES (1)", Expected: ok1r},
			{Query: "SELECT name, dirty FROM dolt_branches ORDER BY name", Expected: []sql.Row{{"feature", true}, {"main", false}}},
			{Query: "CALL dolt_commit('-am', 'row on feature')", SkipResultsCheck: true},
			{Query: "SELECT count(*) FROM t", Expected: []sql.Row{{int64(1)}}},
			{Query: "SELECT count(*) FROM `mydb/main`.t", Expected: []sql.Row{{int64(0)}}},
			{Query: "SELECT has_ancestor('feature', 'main'), has_ancestor('main', 'feature')", Expected: []sql.Row{{true, false}}},
			{Query: "SELECT dolt_merge_base('main', 'feature') = hashof('main')", Expected: []sql.Row{{true}}},
			{Query: "SELECT @@mydb_head = hashof('HEAD'), @@mydb_head = dolt_hashof('feature')", Expected: []sql.Row{{true, true}}},
			{Query: "CALL dolt_branch('-d', 'feature')", ExpectedErrStr: "Cannot delete checked out branch 'feature'"},
			{Query: "CALL dolt_checkout('main')", Expected: []sql.Row{{int64(0), "Switched to branch 'main'"}}},
			{Query: "CALL dolt_branch('-d', 'feature')", ExpectedErrStr: "branch 'feature' is not fully merged"},
			{Query: "CALL dolt_branch('-c', 'feature', 'copy')", Expected: ok0},
			{Query: "CALL dolt_branch('-m', 'copy', 'moved')", Expected: ok0},
			{Query: "SELECT name FROM dolt_branches ORDER BY name", Expected: []sql.Row{{"feature"}, {"main"}, {"moved"}}},
			{Query: "CALL dolt_branch('-D', 'feature', 'moved')", Expected: ok0},
			{Query: "SELECT name FROM dolt_branches ORDER BY name", Expected: []sql.Row{{"main"}}},
			{Query: "CALL dolt_checkout('nobranch')", ExpectedErrStr: "error: tablespec 'nobranch' did not match any table(s) known to dolt"},
			{Query: "CALL dolt_checkout('-b', 'new')", Expected: []sql.Row{{int64(0), "Switched to branch 'new'"}}},
			{Query: "SELECT active_branch()", Expected: []sql.Row{{"new"}}},
			{Query: "CALL dolt_checkout('-b', 'old', 'HEAD~1')", Expected: []sql.Row{{int64(0), "Switched to branch 'old'"}}},
			{Query: "SHOW TABLES", Expected: []sql.Row{}},
			{Query: "CALL dolt_checkout('main')", SkipResultsCheck: true},
			{Query: "CALL dolt_branch('-d', 'main')", ExpectedErrStr: "unable to delete branch 'main', because it is the default branch for database 'mydb'; this can by changed on the command line, by stopping the sql-server, running `dolt checkout <another_branch> and restarting the sql-server"},
			{Query: "CALL dolt_branch('bad..name')", ExpectedErrStr: "fatal: 'bad..name' is an invalid branch name."},
			{Query: "CALL dolt_branch('x', 'nowhere')", ExpectedErrStr: "fatal: 'nowhere' is not a commit and a branch 'x' cannot be created from it"},
			{Query: "CALL dolt_branch('-f', 'old', 'main')", Expected: ok0},
			{Query: "SELECT hashof('old') = hashof('main')", Expected: []sql.Row{{true}}},
		},
	},
	{
		Name: "dolt_checkout of tables discards working changes",
		SetUpScript: []string{
			"CREATE TABLE t (pk INT PRIMARY KEY)",
			"CREATE TABLE u (pk INT PRIMARY KEY)",
			"CALL dolt_commit('-Am', 'create')",
			"INSERT INTO t VALUES (1)",
			"INSERT INTO u VALUES (1)",
		},
		Assertions: []queries.ScriptTestAssertion{
			{Query: "CALL dolt_checkout('t')", Expected: []sql.Row{{int64(0), ""}}},
			{Query: "SELECT (SELECT count(*) FROM t), (SELECT count(*) FROM u)", Expected: []sql.Row{{int64(0), int64(1)}}},
			{Query: "CALL dolt_checkout('t', 'nope')", ExpectedErrStr: "error: tablespec 'nope' did not match any table(s) known to dolt"},
			{Query: "CALL dolt_commit('-am', 'u has a row')", SkipResultsCheck: true},
			{Query: "CALL dolt_checkout('HEAD~1', '--', 'u')", Expected: []sql.Row{{int64(0), ""}}},
			{Query: "SELECT count(*) FROM u", Expected: []sql.Row{{int64(0)}}},
			{Query: "SELECT table_name, staged, status FROM dolt_status", Expected: []sql.Row{{"u", true, "modified"}}},
			{Query: "CALL dolt_checkout('nowhere', '--', 'u')", ExpectedErrStr: "branch not found: nowhere"},
			{Query: "CALL dolt_checkout('HEAD', '--')", ExpectedErrStr: "error: tablespec 'HEAD' did not match any table(s) known to dolt"},
		},
	},
	{
		Name: "dolt_tag and revision databases",
		SetUpScript: []string{
			"CREATE TABLE t (pk INT PRIMARY KEY)",
			"INSERT INTO t VALUES (1)",
			"CALL dolt_commit('-Am', 'one row')",
			"INSERT INTO t VALUES (2)",
			"CALL dolt_commit('-am', 'two rows')",
		},
		Assertions: []queries.ScriptTestAssertion{
			{Query: "CALL dolt_tag('v1', 'HEAD~1', '-m', 'first')", Expected: ok0},
			{Query: "CALL dolt_tag('v2')", Expected: ok0},
			{Query: "SELECT tag_name, tag_hash = hashof('HEAD~1'), message FROM dolt_tags ORDER BY tag_name", Expected: []sql.Row{{"v1", true, "first"}, {"v2", false, ""}}},
			{Query: "CALL dolt_tag('v1')", ExpectedErrStr: "already exists"},
			{Query: "SELECT count(*) FROM `mydb/v1`.t", Expected: []sql.Row{{int64(1)}}},
			{Query: "SELECT count(*) FROM t AS OF 'v1'", Expected: []sql.Row{{int64(1)}}},
			{Query: "SELECT count(*) FROM t AS OF 'HEAD~1'", Expected: []sql.Row{{int64(1)}}},
			{Query: "SELECT count(*) FROM t AS OF 'main'", Expected: []sql.Row{{int64(2)}}},
			{Query: "SELECT count(*) FROM t AS OF 'HEAD~2'", ExpectedErrStr: "table not found: t"},
			{Query: "SELECT count(*) FROM t AS OF 'nosuchref'", ExpectedErrStr: "branch not found: nosuchref"},
			{Query: "SELECT count(*) FROM t AS OF 'HEAD~9'", ExpectedErrStr: "invalid ancestor spec"},
			{Query: "SELECT count(*) FROM t AS OF 'nosuchref~1'", ExpectedErrStr: "branch not found: nosuchref"},
			{Query: "SELECT count(*) FROM t AS OF 'HEAD~5'", ExpectedErrStr: "invalid ancestor spec"},
			{Query: "SELECT count(*) FROM t AS OF ''", ExpectedErrStr: "string is not a valid branch or hash"},
			{Query: "SELECT count(*) FROM t AS OF 123", ExpectedErrStr: "branch not found: 123"},
			{Query: "SHOW TABLES AS OF 'HEAD~2'", Expected: []sql.Row{}},
			{Query: "SELECT count(*) FROM t AS OF hashof('HEAD~1')", Expected: []sql.Row{{int64(1)}}},
			{Query: "SELECT count(*) FROM t AS OF DATE_ADD(NOW(), INTERVAL 1 DAY)", Expected: []sql.Row{{int64(2)}}},
			{Query: "SELECT count(*) FROM t AS OF '2000-01-01'", ExpectedErrStr: "table not found: t"},
			{Query: "SELECT count(*) FROM t AS OF TIMESTAMP('2000-01-01 00:00:00')", ExpectedErrStr: "table not found: t"},
			{Query: "SHOW TABLES AS OF '2000-01-01'", Expected: []sql.Row{}},
			{Query: "SELECT message FROM dolt_log AS OF 'HEAD~1'", Expected: []sql.Row{{"one row"}, {"Initialize data repository"}}},
			{Query: "SELECT message FROM dolt_log AS OF 'v1' WHERE commit_hash = hashof('v1')", Expected: []sql.Row{{"one row"}}},
			{Query: "DESCRIBE t AS OF 'v1'", Expected: []sql.Row{{"pk", "int", "NO", "PRI", nil, ""}}},
			{Query: "SHOW TABLES AS OF 'v1'", Expected: []sql.Row{{"t"}}},
			{Query: "INSERT INTO `mydb/v1`.t VALUES (9)", ExpectedErrStr: "Database mydb/v1 is read-only."},
			{Query: "USE `mydb/v1`"},
			{Query: "SELECT count(*) FROM t", Expected: []sql.Row{{int64(1)}}},
			{Query: "SELECT active_branch()", Expected: []sql.Row{{nil}}},
			{Query: "SELECT message FROM dolt_log", Expected: []sql.Row{{"one row"}, {"Initialize data repository"}}},
			{Query: "CALL dolt_commit('--allow-empty', '-m', 'x')", ExpectedErrStr: "this operation is not supported while in a detached head state"},
			{Query: "CALL dolt_cherry_pick('main')", ExpectedErrStr: "this operation is not supported while in a detached head state"},
			{Query: "USE mydb"},
			{Query: "CALL dolt_tag('-d', 'v1')", Expected: ok0},
			{Query: "CALL dolt_tag('-d', 'v1')", ExpectedErrStr: "tag not found"},
			{Query: "SELECT count(*) FROM `mydb/v1`.t", ExpectedErrStr: "database not found: mydb/v1"},
		},
	},
	{
		Name: "dolt_reset",
		SetUpScript: []string{
			"CREATE TABLE t (pk INT PRIMARY KEY)",
			"CALL dolt_commit('-Am', 'create t')",
			"INSERT INTO t VALUES (1)",
			"CALL dolt_commit('-am', 'one')",
			"INSERT INTO t VALUES (2)",
			"CALL dolt_add('t')",
		},
		Assertions: []queries.ScriptTestAssertion{
			{Query: "SELECT table_name, staged FROM dolt_status", Expected: []sql.Row{{"t", true}}},
			{Query: "CALL dolt_reset('t')", Expected: ok0},
			{Query: "SELECT table_name, staged FROM dolt_status", Expected: []sql.Row{{"t", false}}},
			{Query: "CALL dolt_add('.')", Expected: ok0},
			{Query: "CALL dolt_reset()", Expected: ok0},
			{Query: "SELECT table_name, staged FROM dolt_status", Expected: []sql.Row{{"t", false}}},
			{Query: "CALL dolt_add('.')", Expected: ok0},
			{Query: "CALL dolt_reset('--soft')", Expected: ok0}, // changes nothing, as Dolt's
			{Query: "SELECT table_name, staged FROM dolt_status", Expected: []sql.Row{{"t", true}}},
			{Query: "CALL dolt_reset('--hard')", Expected: ok0},
			{Query: "SELECT count(*) FROM dolt_status", Expected: []sql.Row{{int64(0)}}},
			{Query: "SELECT count(*) FROM t", Expected: []sql.Row{{int64(1)}}},
			{Query: "CALL dolt_reset('--soft', 'HEAD~1')", Expected: ok0},
			{Query: "SELECT message FROM dolt_log ORDER BY commit_order DESC LIMIT 1", Expected: []sql.Row{{"create t"}}},
			{Query: "SELECT table_name, staged FROM dolt_status", Expected: []sql.Row{{"t", true}}},
			{Query: "CALL dolt_commit('-m', 'one again')", SkipResultsCheck: true},
			{Query: "CALL dolt_reset('--hard', 'HEAD~1')", Expected: ok0},
			{Query: "SELECT count(*) FROM t", Expected: []sql.Row{{int64(0)}}},
			{Query: "SELECT message FROM dolt_log ORDER BY commit_order DESC LIMIT 1", Expected: []sql.Row{{"create t"}}},
			{Query: "CREATE TABLE untracked (pk INT PRIMARY KEY)"},
			{Query: "CREATE TABLE staged (pk INT PRIMARY KEY)"},
			{Query: "CALL dolt_add('staged')", Expected: ok0},
			{Query: "INSERT INTO t VALUES (5)", Expected: ok1r},
			{Query: "CALL dolt_reset('--hard')", Expected: ok0},
			{Query: "SHOW TABLES", Expected: []sql.Row{{"t"}, {"untracked"}}},
			{Query: "SELECT table_name, staged, status FROM dolt_status", Expected: []sql.Row{{"untracked", false, "new table"}}},
			{Query: "CALL dolt_reset('--hard', 'nowhere')", ExpectedErrStr: "branch not found: nowhere"},
			{Query: "CALL dolt_reset('--hard', '--soft')", ExpectedErrStr: "error: --hard and --soft are mutually exclusive options."},
		},
	},
	{
		Name: "dolt_branch -f and dolt_checkout -B move the checked-out branch, unless that would lose changes",
		SetUpScript: []string{
			"CREATE TABLE t (pk INT PRIMARY KEY)",
			"CALL dolt_commit('-Am', 'create t')",
			"INSERT INTO t VALUES (1)",
			"CALL dolt_commit('-am', 'one')",
			"CALL dolt_branch('keep')",
		},
		Assertions: []queries.ScriptTestAssertion{
			{Query: "INSERT INTO t VALUES (2)", Expected: ok1r},
			{Query: "CALL dolt_branch('-f', 'main', 'HEAD~1')", ExpectedErrStr: "fatal: cannot move the checked-out branch 'main' to 'HEAD~1': it has uncommitted changes; commit them, or discard them with dolt_reset('--hard'), first"},
			{Query: "CALL dolt_checkout('-B', 'main', 'HEAD~1')", ExpectedErrStr: "fatal: cannot move the checked-out branch 'main' to 'HEAD~1': it has uncommitted changes; commit them, or discard them with dolt_reset('--hard'), first"},
			{Query: "SELECT count(*) FROM t", Expected: []sql.Row{{int64(2)}}},
			{Query: "SELECT message FROM dolt_log ORDER BY commit_order DESC LIMIT 1", Expected: []sql.Row{{"one"}}},
			{Query: "CALL dolt_reset('--hard')", Expected: ok0},
			{Query: "CREATE TABLE scratch (pk INT PRIMARY KEY)"},
			{Query: "CALL dolt_branch('-f', 'main', 'HEAD~1')", Expected: ok0},
			{Query: "SELECT count(*) FROM t", Expected: []sql.Row{{int64(0)}}},
			{Query: "SELECT message FROM dolt_log ORDER BY commit_order DESC LIMIT 1", Expected: []sql.Row{{"create t"}}},
			{Query: "SELECT table_name, staged, status FROM dolt_status", Expected: []sql.Row{{"scratch", false, "new table"}}},
			{Query: "CALL dolt_branch('-f', 'main', 'nosuch')", ExpectedErrStr: "fatal: 'nosuch' is not a commit and a branch 'main' cannot be created from it"},
			{Query: "CALL dolt_checkout('-B', 'main', 'keep')", Expected: []sql.Row{{int64(0), "Switched to branch 'main'"}}},
			{Query: "SELECT count(*) FROM t", Expected: []sql.Row{{int64(1)}}},
			// The transaction's own writes count as changes.
			{Query: "START TRANSACTION"},
			{Query: "INSERT INTO t VALUES (3)", Expected: ok1r},
			{Query: "CALL dolt_branch('-f', 'main', 'HEAD~1')", ExpectedErrStr: "fatal: cannot move the checked-out branch 'main' to 'HEAD~1': it has uncommitted changes; commit them, or discard them with dolt_reset('--hard'), first"},
			{Query: "COMMIT"},
			{Query: "SELECT count(*) FROM t", Expected: []sql.Row{{int64(2)}}},
		},
	},
	{
		Name: "dolt_checkout decides what its arguments name as Dolt does",
		SetUpScript: []string{
			"CREATE TABLE t (pk INT PRIMARY KEY)",
			"CREATE TABLE u (pk INT PRIMARY KEY)",
			"CALL dolt_commit('-Am', 'create')",
			"CALL dolt_tag('v1')",
			"INSERT INTO t VALUES (1)",
			"CALL dolt_commit('-am', 'one')",
			"CALL dolt_branch('keep')",
		},
		Assertions: []queries.ScriptTestAssertion{
			{Query: "CALL dolt_checkout('main')", Expected: []sql.Row{{int64(0), "Already on branch 'main'"}}},
			{Query: "CALL dolt_checkout('v1')", ExpectedErrStr: "dolt does not support a detached head state. To create a branch at this tag, run: \n\tCALL DOLT_CHECKOUT('v1', '-b', <new_branch_name>)"},
			{Query: "CALL dolt_checkout('0123456789abcdefghijklmnopqrstuv')", ExpectedErrStr: "dolt does not support a detached head state. To create a branch at this commit instead, run:\n\tCALL DOLT_CHECKOUT('0123456789abcdefghijklmnopqrstuv', '-b', <new_branch_name>)"},
			{Query: "INSERT INTO t VALUES (2)", Expected: ok1r},
			{Query: "INSERT INTO u VALUES (1)", Expected: ok1r},
			{Query: "CREATE TABLE n (pk INT PRIMARY KEY)"},
			{Query: "CALL dolt_checkout('.')", Expected: []sql.Row{{int64(0), ""}}},
			{Query: "SELECT (SELECT count(*) FROM t), (SELECT count(*) FROM u)", Expected: []sql.Row{{int64(1), int64(0)}}},
			{Query: "SELECT table_name, staged, status FROM dolt_status", Expected: []sql.Row{{"n", false, "new table"}}},
			{Query: "CALL dolt_checkout('-b', 'y', '-B', 'z')", ExpectedErrStr: "Improper usage. Cannot use both -b and -B."},
			{Query: "CALL dolt_checkout('-b', '')", ExpectedErrStr: "error: cannot checkout empty string"},
			{Query: "CALL dolt_checkout('')", ExpectedErrStr: "error: cannot checkout empty string"},
			{Query: "CALL dolt_checkout()", ExpectedErrStr: "Improper usage."},
			{Query: "CALL dolt_checkout('a', 'b', '--', 'c')", ExpectedErrStr: "only one reference expected, 2 given"},
			{Query: "CALL dolt_checkout('main', '--', 'nosuch')", ExpectedErrStr: "tablespec 'nosuch' did not match any table(s) known to dolt"},
			// A table the revision lacks is refused, not dropped.
			{Query: "CALL dolt_checkout('keep', 'n')", ExpectedErrStr: "tablespec 'n' did not match any table(s) known to dolt"},
			{Query: "SHOW TABLES", Expected: []sql.Row{{"n"}, {"t"}, {"u"}}},
			// A first argument that is no table is the revision the others
			// come from.
			{Query: "DELETE FROM t", Expected: []sql.Row{{types.NewOkResult(1)}}},
			{Query: "CALL dolt_checkout('keep', 't')", Expected: []sql.Row{{int64(0), ""}}},
			{Query: "SELECT count(*) FROM t", Expected: []sql.Row{{int64(1)}}},
			{Query: "CALL dolt_checkout('HEAD~1', '--', 't')", Expected: []sql.Row{{int64(0), ""}}},
			{Query: "SELECT table_name, staged, status FROM dolt_status", Expected: []sql.Row{{"t", true, "modified"}, {"n", false, "new table"}}},
			// -b takes one start point and ignores more; the new branch
			// starts clean, main keeps its changes.
			{Query: "CALL dolt_checkout('-b', 'x', 'HEAD', 'ignored')", Expected: []sql.Row{{int64(0), "Switched to branch 'x'"}}},
			{Query: "SELECT count(*) FROM dolt_status", Expected: []sql.Row{{int64(0)}}},
			{Query: "SELECT count(*) FROM `mydb/main`.dolt_status", Expected: []sql.Row{{int64(2)}}},
			{Query: "USE `mydb/v1`"},
			{Query: "CALL dolt_branch('fromtag')", ExpectedErrStr: "fatal: Unexpected error creating branch 'fromtag' : this operation is not supported while in a detached head state"},
			{Query: "CALL dolt_reset()", ExpectedErrStr: "unable to reset HEAD in read-only databases"},
		},
	},
	{
		Name: "dolt_tag and dolt_reset read their arguments as Dolt does",
		SetUpScript: []string{
			"CREATE TABLE t (pk INT PRIMARY KEY)",
			"CREATE TABLE u (pk INT PRIMARY KEY)",
			"CALL dolt_commit('-Am', 'create')",
			"INSERT INTO t VALUES (1)",
			"INSERT INTO u VALUES (1)",
			"CALL dolt_add('.')",
		},
		Assertions: []queries.ScriptTestAssertion{
			{Query: "CALL dolt_tag('-v')", ExpectedErrStr: "error: invalid argument, use 'dolt_tags' system table to list tags"},
			{Query: "CALL dolt_tag('-v', 'v9')", ExpectedErrStr: "error: invalid argument, use 'dolt_tags' system table to list tags"},
			{Query: "CALL dolt_tag('-d', '-m', 'x', 'v')", ExpectedErrStr: "delete and tag message options are incompatible"},
			{Query: "CALL dolt_tag('HEAD')", ExpectedErrStr: "not a valid user tag name"},
			{Query: "CALL dolt_tag('bad name', 'nosuch')", ExpectedErrStr: "not a valid user tag name"},
			{Query: "CALL dolt_tag('v2', '')", ExpectedErrStr: "string is not a valid branch or hash"},
			{Query: "CALL dolt_tag('v2', 'HEAD', 'x')", ExpectedErrStr: "create tag takes at most two args"},
			{Query: "SELECT count(*) FROM dolt_tags", Expected: []sql.Row{{int64(0)}}},
			// Several arguments unstage every table.
			{Query: "CALL dolt_reset('u', 'nosuch')", Expected: ok0},
			{Query: "SELECT table_name, staged FROM dolt_status ORDER BY table_name", Expected: []sql.Row{{"t", false}, {"u", false}}},
			{Query: "CALL dolt_add('.')", Expected: ok0},
			{Query: "CALL dolt_reset('--', 't')", Expected: ok0},
			{Query: "SELECT table_name, staged FROM dolt_status ORDER BY table_name", Expected: []sql.Row{{"t", false}, {"u", true}}},
			{Query: "CREATE TABLE w (pk INT PRIMARY KEY)"},
			{Query: "CALL dolt_reset('w')", ExpectedErrStr: "error: the table(s) w do not exist"},
			{Query: "CALL dolt_reset('nosuch')", ExpectedErrStr: "branch not found: nosuch"},
			{Query: "CALL dolt_reset('HEAD~9')", ExpectedErrStr: "invalid ancestor spec"},
			{Query: "CALL dolt_reset('--hard', 'a', 'b')", ExpectedErrStr: "--hard supports at most one additional param"},
			{Query: "CALL dolt_reset('--soft', 'a', 'b')", ExpectedErrStr: "--soft supports at most one additional param"},
			{Query: "CALL dolt_reset('--hard', 't')", ExpectedErrStr: "branch not found: t"},
			{Query: "USE `mydb/main`"},
			{Query: "CALL dolt_reset('.')", Expected: ok0},
			{Query: "SELECT count(*) FROM dolt_status WHERE staged", Expected: []sql.Row{{int64(0)}}},
		},
	},
}

func TestVersioningBranches(t *testing.T) { runVersioningScripts(t, branchScripts) }

// TestRevisionDatabaseAtHash checks `db/<hash>` and AS OF with a hash, a
// timestamp between two commits and main^2 on a merge commit.
func TestRevisionDatabaseAtHash(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, "CREATE TABLE t (pk INT PRIMARY KEY)")
	env.exec(ctx, "INSERT INTO t VALUES (1)")
	first := env.exec(ctx, "CALL dolt_commit('-Am', 'one', '--date', '2020-01-01')")[0][0].(string)
	env.exec(ctx, "INSERT INTO t VALUES (2)")
	env.exec(ctx, "CALL dolt_commit('-am', 'two', '--date', '2021-01-01')")
	env.check(ctx, "SELECT count(*) FROM `db/"+first+"`.t", "[1]")
	env.check(ctx, "SELECT count(*) FROM t AS OF '"+first+"'", "[1]")
	env.check(ctx, "SELECT count(*) FROM t AS OF '2020-06-01'", "[1]")
	env.check(ctx, "SELECT count(*) FROM t AS OF TIMESTAMP('2021-06-01 00:00:00')", "[2]")
	if _, err := env.query(ctx, "DELETE FROM `db/"+first+"`.t"); err == nil {
		t.Fatal("DELETE in a revision database at a hash succeeded")
	}

	// A merge commit, written directly (dolt_merge is another file's):
	// main^2 is its second parent.
	env.exec(ctx, "CALL dolt_branch('side', 'HEAD~1')")
	g, _ := env.p.CommitGraph("db")
	side, err := g.HeadCommit(ctx, "side")
	if err != nil {
		t.Fatal(err)
	}
	head, ws, err := g.BranchState(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	m, err := g.WriteCommit(ctx, head.Root, []chunks.Address{head.Addr, side.Addr}, commitgraph.Meta{Message: "merge side"})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.UpdateBranch(ctx, "main", commitgraph.BranchUpdate{ExpectedHead: head.Addr, ExpectedWorkingSet: ws, Head: m.Addr, WorkingSet: ws}); err != nil {
		t.Fatal(err)
	}
	env.check(ctx, "SELECT count(*) FROM t AS OF 'main^2'", "[1]")
	env.check(ctx, "SELECT hashof('main^2') = hashof('side'), hashof('main^1') = hashof('main~1')", "[true true]")
	env.check(ctx, "SELECT count(*) FROM `db/main^2`.t", "[1]")
}

// TestShowDatabasesRevision: SHOW DATABASES lists the revision database
// the session is using, as Dolt's does, and no other revision.
func TestShowDatabasesRevision(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, "CREATE TABLE t (pk INT PRIMARY KEY)")
	env.exec(ctx, "CALL dolt_commit('-Am', 'one')")
	env.exec(ctx, "CALL dolt_branch('feature')")
	env.exec(ctx, "CALL dolt_tag('v1')")
	dbs := "[db] [information_schema]"
	env.check(ctx, "SHOW DATABASES", dbs)
	for _, rev := range []string{"db/feature", "db/v1"} {
		env.exec(ctx, "USE `"+rev+"`")
		env.check(ctx, "SHOW DATABASES", "[db] ["+rev+"] [information_schema]")
	}
	env.exec(ctx, "USE db")
	env.check(ctx, "SELECT count(*) FROM `db/main`.t", "[0]")
	env.check(ctx, "SHOW DATABASES", dbs)
}

// countingStore counts the store commits (each one fsync on a file store).
type countingStore struct {
	chunks.Store
	commits atomic.Int64
}

func (s *countingStore) Commit(ctx context.Context, newRoot, expected chunks.Address) error {
	s.commits.Add(1)
	return s.Store.Commit(ctx, newRoot, expected)
}

// countingProvider returns a memory provider with one database, db,
// whose store counts its commits.
func countingProvider(t *testing.T) (*Provider, *countingStore, *dbState) {
	p := NewMemoryProvider()
	cs := &countingStore{Store: chunks.NewMemoryStore()}
	db, err := verso.OpenStore("db", cs, verso.Options{Collations: sqlCollations{}})
	if err != nil {
		t.Fatal(err)
	}
	st := newState(db)
	p.dbs["db"] = st
	return p, cs, st
}

// TestCommitInTransactionIsOneStoreCommit checks that the writes of a
// transaction and the dolt_commit that takes them are one store commit,
// and that the COMMIT after it has nothing left to write.
func TestCommitInTransactionIsOneStoreCommit(t *testing.T) {
	p, cs, _ := countingProvider(t)
	env := newEnv(t, p)
	ctx := env.session("db")
	env.exec(ctx, "CREATE TABLE t (pk INT PRIMARY KEY)")
	before := cs.commits.Load()
	env.exec(ctx, "START TRANSACTION")
	env.exec(ctx, "INSERT INTO t VALUES (1), (2)")
	env.exec(ctx, "CALL dolt_commit('-Am', 'create t with two rows')")
	env.exec(ctx, "COMMIT")
	if n := cs.commits.Load() - before; n != 1 {
		t.Fatalf("INSERT + dolt_commit + COMMIT made %d store commits, want 1", n)
	}
	env.check(ctx, "SELECT count(*) FROM t AS OF 'HEAD'", "[2]")
	env.check(ctx, "SELECT count(*) FROM dolt_status", "[0]")
}

var sessionScripts = []queries.ScriptTest{
	{
		Name: "session variables and committer identity",
		SetUpScript: []string{
			"CREATE TABLE t (pk INT PRIMARY KEY)",
			"CALL dolt_commit('-Am', 'create t')",
		},
		Assertions: []queries.ScriptTestAssertion{
			{Query: "SELECT @@mydb_head = hashof('HEAD'), @@mydb_head_ref", Expected: []sql.Row{{true, "refs/heads/main"}}},
			{Query: "SELECT @@mydb_working = @@mydb_staged", Expected: []sql.Row{{true}}},
			{Query: "INSERT INTO t VALUES (1)", Expected: ok1r},
			{Query: "SELECT @@mydb_working = @@mydb_staged", Expected: []sql.Row{{false}}},
			{Query: "CALL dolt_add('t')", Expected: ok0},
			{Query: "SELECT @@mydb_working = @@mydb_staged", Expected: []sql.Row{{true}}},
			{Query: "SET @@dolt_committer_name = 'Grace Hopper'"},
			{Query: "SET @@dolt_committer_email = 'grace@example.com'"},
			{Query: "CALL dolt_commit('-m', 'as grace')", SkipResultsCheck: true},
			{Query: "SELECT committer, email FROM dolt_log ORDER BY commit_order DESC LIMIT 1", Expected: []sql.Row{{"Grace Hopper", "grace@example.com"}}},
			{Query: "CALL dolt_tag('-m', 'tagged', 'v1')", Expected: ok0},
			{Query: "SELECT tagger, email, message FROM dolt_tags", Expected: []sql.Row{{"Grace Hopper", "grace@example.com", "tagged"}}},
			{Query: "CALL dolt_branch('feature')", Expected: ok0},
			{Query: "SET @@mydb_head_ref = 'feature'"},
			{Query: "SELECT active_branch()", Expected: []sql.Row{{"feature"}}},
			{Query: "SET @@mydb_head_ref = 'refs/heads/main'"},
			{Query: "SELECT active_branch()", Expected: []sql.Row{{"main"}}},
			{Query: "SET @@mydb_head_ref = 'nope'", ExpectedErrStr: "cannot set @@mydb_head_ref: no branch \"nope\" in database mydb; list the branches with SELECT name FROM dolt_branches"},
			{Query: "SET @@mydb_head = 'x'", ExpectedErrStr: "@@mydb_head is read-only: it reports the session's branch state; use dolt_checkout, dolt_commit or dolt_reset to change it"},
		},
	},
	{
		Name: "dolt_checkout -B, dolt_branch -c -f, and each branch keeping its own working set",
		SetUpScript: []string{
			"CREATE TABLE t (pk INT PRIMARY KEY)",
			"CALL dolt_commit('-Am', 'create t')",
			"CALL dolt_branch('other')",
			"INSERT INTO t VALUES (1)",
		},
		Assertions: []queries.ScriptTestAssertion{
			{Query: "CALL dolt_checkout('-b', 'other')", ExpectedErrStr: "fatal: A branch named 'other' already exists."},
			{Query: "CALL dolt_checkout('-B', 'other')", Expected: []sql.Row{{int64(0), "Switched to branch 'other'"}}},
			// The new branch starts clean; main keeps its uncommitted row.
			{Query: "SELECT count(*) FROM t", Expected: []sql.Row{{int64(0)}}},
			{Query: "SELECT table_name, staged, status FROM dolt_status", Expected: []sql.Row{}},
			{Query: "SELECT count(*) FROM `mydb/main`.t", Expected: []sql.Row{{int64(1)}}},
			{Query: "CALL dolt_branch('-c', 'main', 'other')", ExpectedErrStr: "fatal: A branch named 'other' already exists."},
			{Query: "CALL dolt_checkout('main')", SkipResultsCheck: true},
			{Query: "CALL dolt_branch('-c', '-f', 'main', 'other')", Expected: ok0},
			{Query: "SELECT count(*) FROM `mydb/other`.t", Expected: []sql.Row{{int64(1)}}},
			{Query: "CALL dolt_branch('-m', 'main', 'trunk')", ExpectedErrStr: "unable to rename branch 'main', because it is the default branch for database 'mydb'; this can by changed on the command line, by stopping the sql-server, running `dolt checkout <another_branch> and restarting the sql-server"},
			{Query: "CALL dolt_branch('-c', 'nope', 'x')", ExpectedErrStr: "fatal: A branch named 'nope' not found"},
			{Query: "CALL dolt_branch('-c', 'a')", ExpectedErrStr: "error: invalid usage"},
			// -c goes before -d, as in Dolt.
			{Query: "CALL dolt_branch('-c', '-d', 'a', 'b')", ExpectedErrStr: "fatal: A branch named 'a' not found"},
			{Query: "CALL dolt_checkout('--', 't')", Expected: []sql.Row{{int64(0), ""}}},
			{Query: "SELECT count(*) FROM t", Expected: []sql.Row{{int64(0)}}},
			{Query: "USE `mydb/other`"},
			{Query: "CALL dolt_checkout('main')", ExpectedErrStr: "dolt_checkout: the session uses the revision database \"mydb/other\"; USE mydb first, or USE `mydb/<branch>` to switch"},
			{Query: "CALL dolt_commit('-am', 'on other through its revision database')", SkipResultsCheck: true},
			{Query: "SELECT message FROM dolt_log ORDER BY commit_order DESC LIMIT 1", Expected: []sql.Row{{"on other through its revision database"}}},
			{Query: "USE mydb"},
			{Query: "SELECT message FROM dolt_log ORDER BY commit_order DESC LIMIT 1", Expected: []sql.Row{{"create t"}}},
		},
	},
}

func TestVersioningSessions(t *testing.T) { runVersioningScripts(t, sessionScripts) }

// TestConcurrentCommits has sessions insert and dolt_commit at once on one
// branch: every commit lands, none overwrites another's rows. The working
// set is the branch's, so one session's -a may take another's row first:
// --allow-empty keeps the count of commits exact.
func TestConcurrentCommits(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, "CREATE TABLE t (pk INT PRIMARY KEY)")
	env.exec(ctx, "CALL dolt_commit('-Am', 'create t')")
	const sessions, commits = 4, 5
	var wg sync.WaitGroup
	errs := make(chan error, sessions)
	for s := 0; s < sessions; s++ {
		wg.Add(1)
		go func(s int) {
			defer wg.Done()
			c := env.session("db")
			for i := 0; i < commits; i++ {
				for _, q := range []string{
					fmt.Sprintf("INSERT INTO t VALUES (%d)", s*100+i),
					fmt.Sprintf("CALL dolt_commit('--allow-empty', '-am', 'session %d commit %d')", s, i),
				} {
					if _, err := env.query(c, q); err != nil {
						errs <- fmt.Errorf("session %d: %s: %w", s, q, err)
						return
					}
				}
			}
		}(s)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	env.check(ctx, "SELECT count(*) FROM t AS OF 'HEAD'", fmt.Sprintf("[%d]", sessions*commits))
	env.check(ctx, "SELECT count(*) FROM dolt_log", fmt.Sprintf("[%d]", sessions*commits+2))
	env.check(ctx, "SELECT count(*) FROM dolt_status", "[0]")
}
