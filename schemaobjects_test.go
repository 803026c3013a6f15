package verso_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/commitgraph"
)

// TestObjectItems: views, triggers and events are the item dolt_schemas,
// stored procedures the item dolt_procedures, as Dolt names the tables
// that hold them: in the status, in staging, and in ChangedObjects (a
// schema change when the item appears or goes, a data change always).
func TestObjectItems(t *testing.T) {
	db := memDB(t)
	ctx := context.Background()
	putObj := func(prefix, name string) {
		write(t, db, "main", func(ctx context.Context, txn *verso.Txn) error {
			return txn.PutObject(ctx, prefix, name, verso.EncodeObject("x", verso.String(name)))
		})
	}
	dropObj := func(prefix, name string) {
		write(t, db, "main", func(ctx context.Context, txn *verso.Txn) error {
			_, err := txn.DropObject(ctx, prefix, name)
			return err
		})
	}
	changes := func(from, to verso.RootValue) []string {
		t.Helper()
		chs, err := verso.ChangedObjects(ctx, from, to)
		ok(t, err)
		var out []string
		for _, c := range chs {
			out = append(out, fmt.Sprintf("%s data=%v schema=%v", c.Table, c.DataChange, c.SchemaChange))
		}
		return out
	}
	working := func() verso.RootValue {
		t.Helper()
		txn, err := db.Begin(ctx, "main")
		ok(t, err)
		r, err := txn.RootOf(ctx, verso.Working)
		ok(t, err)
		return r
	}

	empty := working()
	putObj(commitgraph.ViewPrefix, "v")
	putObj(commitgraph.ProcedurePrefix, "p")
	if got, want := status(t, db, "main"), []string{"dolt_procedures new table", "dolt_schemas new table"}; !slices.Equal(got, want) {
		t.Fatalf("status: %q, want %q", got, want)
	}
	withBoth := working()
	if got, want := changes(empty, withBoth), []string{"dolt_procedures data=true schema=true", "dolt_schemas data=true schema=true"}; !slices.Equal(got, want) {
		t.Fatalf("ChangedObjects: %q, want %q", got, want)
	}
	commitAll(t, db, "main", "objects")

	putObj(commitgraph.TriggerPrefix, "tr")
	putObj(commitgraph.SQLEventPrefix, "e")
	if got, want := status(t, db, "main"), []string{"dolt_schemas modified"}; !slices.Equal(got, want) {
		t.Fatalf("status after a trigger and an event: %q, want %q", got, want)
	}
	if got, want := changes(withBoth, working()), []string{"dolt_schemas data=true schema=false"}; !slices.Equal(got, want) {
		t.Fatalf("ChangedObjects of a modified item: %q, want %q", got, want)
	}
	dropObj(commitgraph.ProcedurePrefix, "p")
	write(t, db, "main", func(ctx context.Context, txn *verso.Txn) error { return txn.Stage(ctx, verso.ProceduresItem) })
	if got, want := status(t, db, "main"), []string{"dolt_procedures staged deleted", "dolt_schemas modified"}; !slices.Equal(got, want) {
		t.Fatalf("status after staging dolt_procedures: %q, want %q", got, want)
	}
	if got := changes(working(), working()); got != nil {
		t.Fatalf("ChangedObjects of one root: %q", got)
	}
	if !verso.IsObjectItem(verso.SchemasItem) || !verso.IsObjectItem(verso.ProceduresItem) || verso.IsObjectItem("t") {
		t.Fatal("IsObjectItem")
	}
}
