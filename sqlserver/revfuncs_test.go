package sqlserver

import (
	"testing"

	"github.com/dolthub/go-mysql-server/enginetest/queries"
	"github.com/dolthub/go-mysql-server/sql"
)

// Script tests of the revision functions and AS OF as Dolt 2.3.1 answers
// them: hashof() resolves branches and tags in any case and words its
// errors its own way; dolt_merge_base() and AS OF word theirs as
// revisions are worded elsewhere (revisionError).
var revisionFuncScripts = []queries.ScriptTest{
	{
		Name: "hashof() and dolt_merge_base() in Dolt's words",
		SetUpScript: []string{
			"CALL dolt_commit('--allow-empty', '-m', 'second')",
			"CALL dolt_branch('Feat')",
		},
		Assertions: []queries.ScriptTestAssertion{
			{Query: "SELECT hashof('MAIN') = hashof('main'), hashof('head') = hashof('main'), hashof('feat') = hashof('Feat')", Expected: []sql.Row{{true, true, true}}},
			{Query: "SELECT hashof(hashof('main')) = hashof('main'), hashof('MAIN~1') = hashof('main^')", Expected: []sql.Row{{true, true}}},
			{Query: "SELECT hashof('nosuch')", ExpectedErrStr: "invalid ref spec"},
			{Query: "SELECT hashof('')", ExpectedErrStr: "invalid ref spec"},
			{Query: "SELECT hashof('refs/heads/main')", ExpectedErrStr: "invalid ref spec"},
			{Query: "SELECT hashof('0123456789abcdefghijklmnopqrstuv')", ExpectedErrStr: "invalid ref spec"},
			{Query: "SELECT hashof('HEAD~10')", ExpectedErrStr: "invalid ancestor spec"},
			{Query: "SELECT dolt_hashof('main^2')", ExpectedErrStr: "invalid ancestor spec"},
			{Query: "SELECT dolt_merge_base('main', 'Feat') = hashof('main')", Expected: []sql.Row{{true}}},
			{Query: "SELECT dolt_merge_base('nosuch', 'main')", ExpectedErrStr: "branch not found: nosuch"},
			{Query: "SELECT dolt_merge_base('main', 'MAIN')", ExpectedErrStr: "branch not found: MAIN"},
			{Query: "SELECT dolt_merge_base('main', 'HEAD~9')", ExpectedErrStr: "invalid ancestor spec"},
		},
	},
	{
		Name: "AS OF in Dolt's words",
		SetUpScript: []string{
			"CREATE TABLE t (pk INT PRIMARY KEY)",
			"CALL dolt_commit('-Am', 'base', '--date', '2020-01-01T00:00:00')",
		},
		Assertions: []queries.ScriptTestAssertion{
			{Query: "SELECT message FROM dolt_log AS OF 'nosuch'", ExpectedErrStr: "branch not found: nosuch"},
			{Query: "SELECT * FROM t AS OF 'HEAD~5'", ExpectedErrStr: "invalid ancestor spec"},
			{Query: "SELECT * FROM t AS OF ''", ExpectedErrStr: "string is not a valid branch or hash"},
			{Query: "SELECT * FROM t AS OF '0123456789abcdefghijklmnopqrstuv'", ExpectedErrStr: "target commit not found"},
			// Before the first commit, no table existed.
			{Query: "SELECT * FROM t AS OF TIMESTAMP('2019-01-01 00:00:00')", ExpectedErrStr: "table not found: t"},
			{Query: "SELECT COUNT(*) FROM t AS OF TIMESTAMP('2020-01-02 00:00:00')", Expected: []sql.Row{{int64(0)}}},
		},
	},
}

func TestRevisionFunctionScripts(t *testing.T) { runVersioningScripts(t, revisionFuncScripts) }
