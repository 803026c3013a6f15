package verso_test

import (
	"context"
	"errors"
	"testing"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/tablemerge"
)

// TestPreviewMerge: a preview lists the rows a merge would leave in
// conflict and the tables whose schemas would conflict, changes nothing
// (the database is open read-only), and finds nothing to merge where the
// merge would fast-forward.
func TestPreviewMerge(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := verso.Init(dir, verso.Options{})
	ok(t, err)
	createKV(t, db, "main", "t")
	createKV(t, db, "main", "s")
	put(t, db, "main", "t", 1, 1)
	commitAll(t, db, "main", "base")
	ok(t, db.CreateBranch(ctx, "feature", "main"))
	addColumn := func(branch, typ string, kind verso.Kind) {
		write(t, db, branch, func(ctx context.Context, txn *verso.Txn) error {
			_, err := txn.AlterTable(ctx, "s", func(s *verso.Schema) error {
				s.Columns = append(s.Columns, verso.Column{Name: "c", Type: typ, Kind: kind, Nullable: true})
				return nil
			})
			return err
		})
	}
	put(t, db, "feature", "t", 1, 10)
	put(t, db, "feature", "t", 2, 20)
	addColumn("feature", "varchar(10)", verso.KindString)
	commitAll(t, db, "feature", "feature")
	put(t, db, "main", "t", 1, 100)
	put(t, db, "main", "t", 2, 200)
	put(t, db, "main", "t", 3, 300)
	addColumn("main", "int", verso.KindInt)
	commitAll(t, db, "main", "main")
	ok(t, db.Close())

	db, err = verso.Open(dir, verso.Options{ReadOnly: true})
	ok(t, err)
	defer db.Close()
	p, err := db.PreviewMerge(ctx, "main", "feature", "main", nil)
	ok(t, err)
	if len(p.Conflicts) != 1 || p.Conflicts[0].Table != "t" || p.Conflicts[0].Count != 2 {
		t.Fatalf("conflicts %+v, want 2 rows of t", p.Conflicts)
	}
	if len(p.SchemaConflicts) != 1 || p.SchemaConflicts[0].Table != "s" || !errors.Is(p.SchemaConflicts[0].Err, tablemerge.ErrSchemaConflict) {
		t.Fatalf("schema conflicts %+v, want s", p.SchemaConflicts)
	}
	cs, err := p.ConflictSet(ctx, "t")
	ok(t, err)
	if cs == nil || cs.Count() != 2 || cs.Theirs != p.Theirs.Addr {
		t.Fatalf("conflict set of t: %+v, want 2 rows from feature's head", cs)
	}
	if cs, err := p.ConflictSet(ctx, "s"); err != nil || cs != nil {
		t.Fatalf("conflict set of s: %v, %v; want none", cs, err)
	}

	for _, c := range [][2]string{{"main", "main"}, {"main", "main~1"}, {"main~1", "main"}} {
		p, err := db.PreviewMerge(ctx, c[0], c[1], "main", nil)
		ok(t, err)
		if len(p.Conflicts) != 0 || len(p.SchemaConflicts) != 0 {
			t.Fatalf("preview of %s into %s: %+v", c[1], c[0], p)
		}
		if cs, err := p.ConflictSet(ctx, "t"); err != nil || cs != nil {
			t.Fatalf("conflict set of %s into %s: %v, %v", c[1], c[0], cs, err)
		}
	}
	var re *verso.RevisionError
	if _, err := db.PreviewMerge(ctx, "main", "nosuch", "main", nil); !errors.As(err, &re) || re.Rev != "nosuch" {
		t.Fatalf("preview of an unknown revision: %v, want a RevisionError", err)
	}
}
