package tablemerge

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tables"
)

// fixture builds tables and root values over a memory store.
type fixture struct {
	t   *testing.T
	ctx context.Context
	ns  *prolly.NodeStore
}

func newFixture(t *testing.T) *fixture {
	return &fixture{t: t, ctx: context.Background(), ns: prolly.NewNodeStore(chunks.NewMemoryStore())}
}

// testCollations holds test_ci, a case-insensitive collation.
var testCollations = tables.CollationMap{"test_ci": func(s string) []byte { return []byte(strings.ToLower(s)) }}

// testSchema: id INT key, a INT (indexed), b VARCHAR (unique), all but id
// nullable.
func testSchema() *tables.Schema {
	return &tables.Schema{
		Columns: []tables.Column{
			{Name: "id", Type: "int", Kind: prolly.KindInt},
			{Name: "a", Type: "int", Kind: prolly.KindInt, Nullable: true},
			{Name: "b", Type: "varchar(20)", Kind: prolly.KindString, Nullable: true},
		},
		PrimaryKey: []int{0},
		Indexes: []tables.Index{
			{Name: "ka", Columns: []int{1}},
			{Name: "ub", Columns: []int{2}, Unique: true},
		},
	}
}

// row builds a row from Go values: int, string, nil.
func row(vals ...any) []tables.Value {
	out := make([]tables.Value, len(vals))
	for i, v := range vals {
		switch x := v.(type) {
		case nil:
			out[i] = prolly.Null()
		case int:
			out[i] = prolly.Int(int64(x))
		case string:
			out[i] = prolly.String(x)
		default:
			panic(fmt.Sprintf("row: value %T", v))
		}
	}
	return out
}

func (f *fixture) table(s *tables.Schema, rows ...[]tables.Value) *tables.Table {
	f.t.Helper()
	t, err := tables.New(f.ns, s, testCollations)
	if err != nil {
		f.t.Fatal(err)
	}
	return f.edit(t, func(ed *tables.Editor) error {
		for _, r := range rows {
			if _, err := ed.Insert(f.ctx, r); err != nil {
				return err
			}
		}
		return nil
	})
}

func (f *fixture) edit(t *tables.Table, fn func(ed *tables.Editor) error) *tables.Table {
	f.t.Helper()
	ed := t.Edit()
	if err := fn(ed); err != nil {
		f.t.Fatal(err)
	}
	nt, err := ed.Table(f.ctx)
	if err != nil {
		f.t.Fatal(err)
	}
	return nt
}

// root makes a root value from name -> table (under TablePrefix) or name
// -> raw chunk bytes (other entries, such as "views/v").
func (f *fixture) root(entries map[string]any) commitgraph.RootValue {
	f.t.Helper()
	var edits []commitgraph.RootEdit
	for name, v := range entries {
		var addr chunks.Address
		var err error
		switch x := v.(type) {
		case *tables.Table:
			addr, err = x.Write(f.ctx)
			name = TablePrefix + name
		case string:
			addr, err = f.ns.Store().Put(f.ctx, []byte(x))
		}
		if err != nil {
			f.t.Fatal(err)
		}
		edits = append(edits, commitgraph.RootEdit{Name: name, Addr: addr})
	}
	r, err := commitgraph.EmptyRoot(f.ns).Edit(f.ctx, edits...)
	if err != nil {
		f.t.Fatal(err)
	}
	return r
}

// merge merges and checks every merged table.
func (f *fixture) merge(base, ours, theirs commitgraph.RootValue) (*Result, error) {
	f.t.Helper()
	res, err := Merge(f.ctx, f.ns, base, ours, theirs, Options{Theirs: chunks.Address{1}, Collations: testCollations})
	if err != nil {
		return nil, err
	}
	for _, name := range res.Merged {
		f.check(res.Root, name)
	}
	return res, nil
}

func (f *fixture) mustMerge(base, ours, theirs commitgraph.RootValue) *Result {
	f.t.Helper()
	res, err := f.merge(base, ours, theirs)
	if err != nil {
		f.t.Fatal(err)
	}
	return res
}

func (f *fixture) load(root commitgraph.RootValue, name string) *tables.Table {
	f.t.Helper()
	a, ok, err := root.Get(f.ctx, TablePrefix+name)
	if err != nil || !ok {
		f.t.Fatalf("table %q: %v %v", name, ok, err)
	}
	t, err := tables.Load(f.ctx, f.ns, a, testCollations)
	if err != nil {
		f.t.Fatal(err)
	}
	return t
}

// check verifies the table's invariants: rows, indexes, unique keys.
func (f *fixture) check(root commitgraph.RootValue, name string) {
	f.t.Helper()
	if err := f.load(root, name).Check(f.ctx); err != nil {
		f.t.Fatalf("table %q after the merge: %v", name, err)
	}
}

// rows prints a table's rows in key order.
func (f *fixture) rows(root commitgraph.RootValue, name string) string {
	f.t.Helper()
	it := f.load(root, name).Scan(f.ctx, nil, nil, false)
	var parts []string
	for it.Next(f.ctx) {
		parts = append(parts, fmtRow(it.Row()))
	}
	if err := it.Err(); err != nil {
		f.t.Fatal(err)
	}
	return strings.Join(parts, " ")
}

func fmtRow(r []tables.Value) string {
	if r == nil {
		return "-"
	}
	parts := make([]string, len(r))
	for i, v := range r {
		s := v.String()
		if _, rest, ok := strings.Cut(s, ":"); ok {
			s = rest
		}
		if v.Kind() == prolly.KindString {
			s = v.AsString()
		}
		parts[i] = s
	}
	return "(" + strings.Join(parts, ",") + ")"
}

// conflicts prints the conflicts of a table: key base ours theirs.
func (f *fixture) conflicts(root commitgraph.RootValue, name string) string {
	f.t.Helper()
	a, ok, err := root.Get(f.ctx, ConflictsPrefix+name)
	if err != nil {
		f.t.Fatal(err)
	}
	if !ok {
		return ""
	}
	cs, err := LoadConflictSet(f.ctx, f.ns, a)
	if err != nil {
		f.t.Fatal(err)
	}
	if err := cs.Check(f.ctx); err != nil {
		f.t.Fatalf("conflicts of %q: %v", name, err)
	}
	var parts []string
	err = cs.Each(f.ctx, func(c Conflict) bool {
		parts = append(parts, tables.KeyText(c.Key)+":"+fmtRow(c.Base)+fmtRow(c.Ours)+fmtRow(c.Theirs))
		return true
	})
	if err != nil {
		f.t.Fatal(err)
	}
	return strings.Join(parts, " ")
}
