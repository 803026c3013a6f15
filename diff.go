package verso

import (
	"context"
	"fmt"

	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tables"
)

// RowChange is one row that differs between two versions of a table: From
// is nil for a row added, To for a row removed.
type RowChange struct {
	From, To []Value
}

// Root returns the root value of the revision rev (a branch's head, a tag,
// a hash, main~2; "" for the default branch's head).
func (db *DB) Root(ctx context.Context, rev string) (RootValue, error) {
	if rev == "" {
		rev = db.DefaultBranch()
	}
	c, err := db.resolve(ctx, rev, db.DefaultBranch())
	if err != nil {
		return RootValue{}, err
	}
	return db.graph.OpenRoot(ctx, c.Root)
}

// DiffTable calls fn with each row of table that differs from the root
// from to the root to, in primary-key order. The cost follows the size of
// the change (unchanged subtrees are skipped unread). A table missing on
// one side reads as empty there; a table whose schema changed is an error
// naming it (compare its rows in SQL, dolt_diff_<table>, instead).
func (db *DB) DiffTable(ctx context.Context, from, to RootValue, table string, fn func(RowChange) error) error {
	load := func(r RootValue) (*tables.Table, error) {
		_, addr, ok, err := FindTable(ctx, r, table)
		if err != nil || !ok {
			return nil, err
		}
		return tables.Load(ctx, db.graph.NodeStore(), addr, db.Collations())
	}
	ft, err := load(from)
	if err != nil {
		return err
	}
	tt, err := load(to)
	if err != nil {
		return err
	}
	if ft == nil && tt == nil {
		return fmt.Errorf("%w: %q in neither root", ErrTableNotFound, table)
	}
	ref := tt
	if ref == nil {
		ref = ft
	}
	empty, err := tables.New(db.graph.NodeStore(), ref.Schema(), db.Collations())
	if err != nil {
		return err
	}
	if ft == nil {
		ft = empty
	}
	if tt == nil {
		tt = empty
	}
	if string(tables.EncodeSchema(ft.Schema())) != string(tables.EncodeSchema(tt.Schema())) {
		return fmt.Errorf("verso: the schema of table %q differs between the two roots", table)
	}
	d := prolly.NewDiffer(ft.Rows(), tt.Rows())
	for d.Next(ctx) {
		df := d.Diff()
		var c RowChange
		if df.From != nil {
			if c.From, err = ft.Decode(ctx, df.Key, df.From); err != nil {
				return err
			}
		}
		if df.To != nil {
			if c.To, err = tt.Decode(ctx, df.Key, df.To); err != nil {
				return err
			}
		}
		if err := fn(c); err != nil {
			return err
		}
	}
	return d.Err()
}
