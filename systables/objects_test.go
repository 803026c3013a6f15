package systables

import (
	"testing"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// TestDiffObjectRows: rows of a table of schema objects pair by key (its
// case aside) and differ by value, JSON by its text and times as
// instants, whatever the values' Go identities.
func TestDiffObjectRows(t *testing.T) {
	ctx := sql.NewEmptyContext()
	extra := func(s string) any { return types.NewLazyJSONDocument([]byte(s)) }
	at := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	from := []sql.Row{
		{"trigger", "tr", "CREATE TRIGGER tr ...", extra(`{"CreatedAt":1}`), "mode"},
		{"view", "V1", "CREATE VIEW v1 AS SELECT 1", extra(`{"CreatedAt":0}`), "mode"},
		{"view", "v2", "CREATE VIEW v2 AS SELECT 2", extra(`{"CreatedAt":0}`), "mode"},
	}
	to := []sql.Row{
		{"trigger", "tr", "CREATE TRIGGER tr ...", extra(`{"CreatedAt":2}`), "mode"},
		{"view", "v1", "CREATE VIEW v1 AS SELECT 1", extra(`{"CreatedAt":0}`), "mode"},
		{"view", "v3", "CREATE VIEW v3 AS SELECT 3", extra(`{"CreatedAt":0}`), "mode"},
	}
	SortObjectRows(SchemasName, from)
	SortObjectRows(SchemasName, to)
	var got []string
	for _, c := range diffObjectRows(ctx, SchemasName, from, to) {
		name := ""
		if c.to != nil {
			name = c.to[1].(string)
		} else {
			name = c.from[1].(string)
		}
		got = append(got, c.diffType()+" "+name)
	}
	want := []string{"modified tr", "modified v1", "removed v2", "added v3"} // v1 paired with V1, renamed
	if len(got) != len(want) {
		t.Fatalf("changes %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("changes %q, want %q", got, want)
		}
	}
	p := []sql.Row{{"p", "CREATE PROCEDURE p() SELECT 1", at, at.In(time.FixedZone("x", 3600)), "mode"}}
	q := []sql.Row{{"p", "CREATE PROCEDURE p() SELECT 1", at.In(time.FixedZone("y", -3600)), at, "mode"}}
	if cs := diffObjectRows(ctx, ProceduresName, p, q); len(cs) != 0 {
		t.Fatalf("the same procedure differs: %v", cs)
	}
}
