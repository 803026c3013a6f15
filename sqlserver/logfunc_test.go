package sqlserver

import (
	"testing"

	"github.com/dolthub/go-mysql-server/enginetest/queries"
	"github.com/dolthub/go-mysql-server/sql"
)

// Script tests of dolt_log() as Dolt 2.3.1 answers it: its twelve
// columns, its refs and their order, its options and errors, and dolt_log
// AS OF and in a revision database.
var logFuncScripts = []queries.ScriptTest{
	{
		Name: "dolt_log() columns, refs and options",
		SetUpScript: []string{
			"CREATE TABLE t (pk INT PRIMARY KEY)",
			"CALL dolt_commit('-Am', 'base')",
			"CALL dolt_branch('zeta')",
			"CALL dolt_branch('alpha')",
			"CALL dolt_tag('v1')",
			"CREATE TABLE u (pk INT PRIMARY KEY)",
			"CALL dolt_commit('-Am', 'second')",
		},
		Assertions: []queries.ScriptTestAssertion{
			// The table: "HEAD -> " on HEAD, then the branches and the tags, each by name.
			{Query: "SELECT message, refs FROM dolt_log", Expected: []sql.Row{
				{"second", "HEAD -> main"}, {"base", "alpha, zeta, tag: v1"}, {"Initialize data repository", ""}}},
			// The function: all twelve columns, parents and signature NULL.
			{Query: "SELECT message, commit_order, parents IS NULL, refs, signature IS NULL, author FROM dolt_log() LIMIT 1",
				Expected: []sql.Row{{"second", uint64(3), true, "HEAD -> main", true, "root"}}},
			{Query: "SELECT parents = hashof('HEAD~1'), signature FROM dolt_log('--parents', '--show-signature') LIMIT 1", Expected: []sql.Row{{true, ""}}},
			// "HEAD -> " goes on the one revision listed.
			{Query: "SELECT message, refs FROM dolt_log('alpha')", Expected: []sql.Row{
				{"base", "HEAD -> alpha, zeta, tag: v1"}, {"Initialize data repository", ""}}},
			{Query: "SELECT message, refs FROM dolt_log('alpha', 'main') LIMIT 2", Expected: []sql.Row{
				{"second", "main"}, {"base", "alpha, zeta, tag: v1"}}},
			{Query: "SELECT refs FROM dolt_log('--decorate', 'full') LIMIT 2", Expected: []sql.Row{
				{"HEAD -> refs/heads/main"}, {"refs/heads/alpha, refs/heads/zeta, tag: refs/tags/v1"}}},
			{Query: "SELECT refs FROM dolt_log('--decorate=no') LIMIT 1", Expected: []sql.Row{{""}}},
			{Query: "SELECT refs FROM dolt_log('--decorate', 'auto') LIMIT 1", Expected: []sql.Row{{"HEAD -> main"}},
				ExpectedWarning: 1287, ExpectedWarningsCount: 1, ExpectedWarningMessageSubstring: "--decorate=auto has no defined meaning in SQL contexts; defaulting to short"},
			{Query: "SELECT message FROM dolt_log('--tables', 'u')", Expected: []sql.Row{{"second"}}},
			{Query: "SELECT message FROM dolt_log('-t', 't,u')", Expected: []sql.Row{{"second"}, {"base"}}},
			{Query: "SELECT message FROM dolt_log('--min-parents', '1')", Expected: []sql.Row{{"second"}, {"base"}}},
			{Query: "SELECT message FROM dolt_log('main', '--not', 'alpha', 'zeta')", Expected: []sql.Row{{"second"}}},
			// verso limits (Dolt 2.3.1 ignores -n).
			{Query: "SELECT message FROM dolt_log('-n1')", Expected: []sql.Row{{"second"}}},
			{Query: "SELECT message FROM dolt_log('--decorate')", ExpectedErrStr: "Invalid argument to dolt_log: error: no value for option `decorate'"},
			{Query: "SELECT message FROM dolt_log('--decorate', 'FULL')", ExpectedErrStr: `Invalid argument to dolt_log: invalid --decorate option: "FULL"`},
			{Query: "SELECT message FROM dolt_log('--oneline')", ExpectedErrStr: "Invalid argument to dolt_log: error: unknown option `oneline'"},
			{Query: "SELECT message FROM dolt_log('--min-parents', 'x')", ExpectedErrStr: `Invalid argument to dolt_log: error: "x" is not a valid int.`},
			{Query: "SELECT message FROM dolt_log(NULL)", ExpectedErrStr: "Invalid argument to dolt_log: NULL"},
			{Query: "SELECT message FROM dolt_log('main..alpha', 'zeta')", ExpectedErrStr: "Invalid argument to dolt_log: revision cannot contain '..' or '...' if multiple revisions exist"},
			{Query: "SELECT message FROM dolt_log('nosuch')", ExpectedErrStr: "branch not found: nosuch"},
			{Query: "SELECT message FROM dolt_log('main', '^nosuch~1')", ExpectedErrStr: "branch not found: nosuch"},
			{Query: "SELECT message FROM dolt_log('HEAD~5')", ExpectedErrStr: "invalid ancestor spec"},
			{Query: "SELECT message FROM dolt_log('alpha..')", ExpectedErrStr: "string is not a valid branch or hash"},
			{Query: "SELECT message FROM dolt_log('0123456789abcdefghijklmnopqrstuv')", ExpectedErrStr: "target commit not found"},
		},
	},
	{
		Name: "dolt_log AS OF and in a revision database",
		SetUpScript: []string{
			"CREATE TABLE t (pk INT PRIMARY KEY)",
			"CALL dolt_commit('-Am', 'base')",
			"CALL dolt_tag('v1')",
			"CALL dolt_commit('--allow-empty', '-m', 'second')",
		},
		Assertions: []queries.ScriptTestAssertion{
			{Query: "SELECT message FROM dolt_log AS OF 'HEAD~1'", Expected: []sql.Row{{"base"}, {"Initialize data repository"}}},
			{Query: "SELECT message FROM dolt_log AS OF 'v1' WHERE commit_hash = hashof('main')", Expected: []sql.Row{}},
			{Query: "SELECT message FROM `mydb/v1`.dolt_log", Expected: []sql.Row{{"base"}, {"Initialize data repository"}}},
			{Query: "USE `mydb/v1`", SkipResultsCheck: true},
			{Query: "SELECT message, refs FROM dolt_log()", Expected: []sql.Row{{"base", "HEAD -> tag: v1"}, {"Initialize data repository", ""}}},
			{Query: "SELECT message FROM dolt_log('HEAD~1')", Expected: []sql.Row{{"Initialize data repository"}}},
		},
	},
}

func TestLogFunctionScripts(t *testing.T) { runVersioningScripts(t, logFuncScripts) }
