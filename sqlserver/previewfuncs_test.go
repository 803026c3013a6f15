package sqlserver

import (
	"testing"

	"github.com/dolthub/go-mysql-server/enginetest/queries"
	"github.com/dolthub/go-mysql-server/sql"
)

// previewScripts: dolt_preview_merge_conflicts_summary and
// dolt_preview_merge_conflicts show what a merge would conflict on, in
// both directions and at revisions, change nothing, and refuse in Dolt's
// words.
var previewScripts = []queries.ScriptTest{
	{
		Name: "merge previews: data and schema conflicts, without merging",
		SetUpScript: append(diverge(
			[]string{"UPDATE t SET a = 12 WHERE pk = 1", "INSERT INTO t VALUES (4, 40, 'w')", "CREATE TABLE s (pk INT PRIMARY KEY, v INT)",
				"CALL dolt_commit('-Am', 's')", "ALTER TABLE s MODIFY v VARCHAR(10)"},
			[]string{"UPDATE t SET a = 11 WHERE pk = 1", "INSERT INTO t VALUES (4, 41, 'v')"}),
			"CALL dolt_checkout('feature')", "CALL dolt_checkout('main')",
			"CREATE TABLE s (pk INT PRIMARY KEY, v BIGINT)", "CALL dolt_commit('-Am', 's on main')"),
		Assertions: []queries.ScriptTestAssertion{
			{Query: "SELECT * FROM dolt_preview_merge_conflicts_summary('main', 'feature') ORDER BY `table`",
				Expected: []sql.Row{{"s", nil, uint64(1)}, {"t", uint64(2), uint64(0)}}},
			{Query: "SELECT * FROM dolt_preview_merge_conflicts_summary('feature', 'main') ORDER BY `table`",
				Expected: []sql.Row{{"s", nil, uint64(1)}, {"t", uint64(2), uint64(0)}}},
			{Query: "SELECT * FROM dolt_preview_merge_conflicts_summary('main', 'main')", Expected: []sql.Row{}},
			{Query: "SELECT * FROM dolt_preview_merge_conflicts_summary('main', 'main~1')", Expected: []sql.Row{}},
			{Query: "SELECT * FROM dolt_preview_merge_conflicts_summary('HEAD~1', 'feature~1')", Expected: []sql.Row{{"t", uint64(2), uint64(0)}}},
			{Query: "SELECT from_root_ish = hashof('feature'), base_pk, base_a, our_pk, our_a, our_diff_type, their_pk, their_a, their_diff_type FROM dolt_preview_merge_conflicts('main', 'feature', 'T') ORDER BY our_pk",
				Expected: []sql.Row{{true, 1, 10, 1, 11, "modified", 1, 12, "modified"}, {true, nil, nil, 4, 41, "added", 4, 40, "added"}}},
			{Query: "SELECT our_a, their_a FROM dolt_preview_merge_conflicts('feature', 'main', 't') ORDER BY our_pk",
				Expected: []sql.Row{{12, 11}, {40, 41}}},
			{Query: "SELECT COUNT(DISTINCT dolt_conflict_id) FROM dolt_preview_merge_conflicts('main', 'feature', 't')", Expected: []sql.Row{{int64(2)}}},
			{Query: "SELECT COUNT(*) FROM dolt_preview_merge_conflicts('main', 'main', 't')", Expected: []sql.Row{{int64(0)}}},
			{Query: "SELECT * FROM dolt_preview_merge_conflicts('main', 'feature', 's')", ExpectedErrStr: "schema conflicts found: 1"},
			// Nothing changed.
			{Query: "SELECT * FROM dolt_status", Expected: []sql.Row{}},
			{Query: "SELECT * FROM dolt_merge_status", Expected: notMerging},
			{Query: "SELECT count(*) FROM dolt_conflicts", Expected: noConflicts},
			// The preview's rows are the merge's.
			{Query: "SET @@dolt_allow_commit_conflicts = 1", SkipResultsCheck: true},
			{Query: "ALTER TABLE s MODIFY v VARCHAR(10)", SkipResultsCheck: true},
			{Query: "CALL dolt_commit('-am', 's as on feature')", SkipResultsCheck: true},
			{Query: "CALL dolt_merge('feature')", Expected: mergedWithConflicts},
			{Query: "SELECT COUNT(*) FROM dolt_preview_merge_conflicts('main', 'feature', 't') p JOIN dolt_conflicts_t c ON p.our_pk = c.our_pk AND p.their_a = c.their_a AND p.dolt_conflict_id = c.dolt_conflict_id",
				Expected: []sql.Row{{int64(2)}}},
		},
	},
	{
		Name:        "merge previews refuse in Dolt's words",
		SetUpScript: diverge([]string{"UPDATE t SET a = 12 WHERE pk = 1"}, []string{"UPDATE t SET a = 11 WHERE pk = 1"}),
		Assertions: []queries.ScriptTestAssertion{
			{Query: "SELECT * FROM dolt_preview_merge_conflicts_summary('main')", ExpectedErrStr: "function 'dolt_preview_merge_conflicts_summary' expected 2 arguments, 1 received"},
			{Query: "SELECT * FROM dolt_preview_merge_conflicts('main', 'feature')", ExpectedErrStr: "function 'dolt_preview_merge_conflicts' expected 3 arguments, 2 received"},
			{Query: "SELECT * FROM dolt_preview_merge_conflicts_summary(NULL, 'feature')", ExpectedErrStr: "Invalid argument to dolt_preview_merge_conflicts_summary: NULL"},
			{Query: "SELECT * FROM dolt_preview_merge_conflicts('main', 'feature', NULL)", ExpectedErrStr: "Invalid argument to dolt_preview_merge_conflicts: NULL"},
			{Query: "SELECT * FROM dolt_preview_merge_conflicts_summary('main', 'nosuch')", ExpectedErrStr: "branch not found: nosuch"},
			{Query: "SELECT * FROM dolt_preview_merge_conflicts_summary('main~9', 'feature')", ExpectedErrStr: "invalid ancestor spec"},
			{Query: "SELECT * FROM dolt_preview_merge_conflicts_summary('', 'feature')", ExpectedErrStr: "left branch name cannot be empty"},
			{Query: "SELECT * FROM dolt_preview_merge_conflicts_summary('main', '')", ExpectedErrStr: "right branch name cannot be empty"},
			{Query: "SELECT * FROM dolt_preview_merge_conflicts('main', 'nosuch', 't')", ExpectedErrStr: "branch not found: nosuch"},
			{Query: "SELECT * FROM dolt_preview_merge_conflicts('main', 'feature', 'nosuch')", ExpectedErrStr: "table not found: nosuch"},
		},
	},
}

func TestMergePreviews(t *testing.T) { runVersioningScripts(t, previewScripts) }

// TestMergePreviewReadOnly: a preview writes nothing, so it works in a
// database opened read-only.
func TestMergePreviewReadOnly(t *testing.T) {
	dir := t.TempDir()
	p, err := NewProvider(dir)
	if err != nil {
		t.Fatal(err)
	}
	env := newEnv(t, p)
	ctx := setupDB(env)
	for _, q := range diverge([]string{"UPDATE t SET a = 12 WHERE pk = 1"}, []string{"UPDATE t SET a = 11 WHERE pk = 1"}) {
		env.exec(ctx, q)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	ro, err := NewReadOnlyProvider(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	env2 := newEnv(t, ro)
	ctx2 := env2.session("db")
	env2.check(ctx2, "SELECT * FROM dolt_preview_merge_conflicts_summary('main', 'feature')", "[t 1 0]")
	env2.check(ctx2, "SELECT our_a, their_a FROM dolt_preview_merge_conflicts('main', 'feature', 't')", "[11 12]")
}
