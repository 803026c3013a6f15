package sqlserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/planbuilder"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tablemerge"
	"github.com/verso-db/verso/tables"
)

// Constraint violations the SQL layer finds: rows that break a foreign key
// (a child row whose parent row is missing) or a CHECK constraint, as
// Dolt's merges and dolt_verify_constraints record them (the engine
// records unique-key violations of its merges itself, tablemerge). They
// go into the root value under violations/<table>, with Dolt's
// violation_info:
//
//	foreign key       {"Index", "Table", "Columns", "OnDelete", "OnUpdate",
//	                   "ForeignKey", "ReferencedIndex", "ReferencedTable",
//	                   "ReferencedColumns"}
//	check constraint  {"Name", "Expression"}
//
// A verification reads every row of the tables it checks (and, for a
// foreign key, of its parent table). Rows are matched with their parent
// by their stored values: a string key of a case-insensitive collation
// matches its parent only in the same case.

// verifier finds the violations of the tables of one root value.
type verifier struct {
	db   *Database
	root commitgraph.RootValue
	from chunks.Address // recorded as the violations' from_root_ish
	fks  []sql.ForeignKeyConstraint
}

func newVerifier(ctx *sql.Context, db *Database, root commitgraph.RootValue, from chunks.Address) (*verifier, error) {
	v := &verifier{db: db, root: root, from: from}
	ents, err := root.Entries(ctx, fkPrefix)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		b, err := db.st.graph.NodeStore().Store().Get(ctx, e.Addr)
		if err != nil {
			return nil, err
		}
		o, err := verso.DecodeObject(strings.TrimPrefix(e.Name, fkPrefix), "foreignkey", fkKinds, b)
		if err != nil {
			return nil, err
		}
		var fk sql.ForeignKeyConstraint
		if err := json.Unmarshal([]byte(o.Fields[0].AsString()), &fk); err != nil {
			return nil, fmt.Errorf("%w: foreign key %q: %v", tables.ErrCorrupt, o.Name, err)
		}
		v.fks = append(v.fks, fk)
	}
	return v, nil
}

// load returns the table named exactly name in the root, nil if none.
func (v *verifier) load(ctx *sql.Context, name string) (*tables.Table, chunks.Address, error) {
	addr, ok, err := v.root.Get(ctx, commitgraph.TablePrefix+name)
	if err != nil || !ok {
		return nil, addr, err
	}
	t, err := tables.Load(ctx, v.db.st.graph.NodeStore(), addr, sqlCollations{})
	return t, addr, err
}

// exactTable returns the name of table (any case) in the root.
func (v *verifier) exactTable(ctx *sql.Context, table string) (string, bool, error) {
	exact, _, ok, err := verso.FindTable(ctx, v.root, table)
	return exact, ok, err
}

// compiledCheck is a CHECK constraint ready to evaluate on a table's rows.
type compiledCheck struct {
	check tables.Check
	expr  sql.Expression
}

// compileCheck resolves the CHECK expression text against the table's
// columns sch (GetField indexes are the columns' positions).
func compileCheck(ctx *sql.Context, db, table string, sch sql.Schema, text string) (e sql.Expression, err error) {
	defer func() {
		if r := recover(); r != nil { // the planner panics on what it cannot resolve
			e, err = nil, fmt.Errorf("check %s of table %q: %v", text, table, r)
		}
	}()
	cols := make(sql.Schema, 0, len(sch)+1)
	for _, c := range sch {
		cc := *c
		cc.Default, cc.Generated, cc.OnUpdate = nil, nil, nil
		cols = append(cols, &cc)
	}
	chk := &sql.Column{Name: "verso check", Type: types.Int64, Nullable: true, Source: table,
		Generated: sql.NewUnresolvedColumnDefaultValue(text)}
	if len(sch) > 0 { // one partition of columns with the table's
		chk.Source, chk.DatabaseSource = sch[0].Source, sch[0].DatabaseSource
	}
	cols = append(cols, chk)
	out := planbuilder.NewBuilderForColumnDefaultResolution(ctx, sql.EngineOverrides{}).ResolveSchemaDefaults(db, table, cols)
	g := out[len(out)-1].Generated
	if g == nil || g.Expr == nil {
		return nil, fmt.Errorf("check %s of table %q cannot be resolved", text, table)
	}
	e, _, err = transform.Expr(ctx, g.Expr, func(ctx *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		if gf, ok := e.(*expression.GetField); ok {
			i := sch.IndexOfColName(gf.Name())
			if i < 0 {
				return nil, transform.SameTree, fmt.Errorf("check %s of table %q: no column %q", text, table, gf.Name())
			}
			return gf.WithIndex(i), transform.NewTree, nil
		}
		return e, transform.SameTree, nil
	})
	return e, err
}

// fkAction is Dolt's word for a referential action.
func fkAction(a sql.ForeignKeyReferentialAction) string {
	if a == sql.ForeignKeyReferentialAction_DefaultAction || a == "" {
		return "RESTRICT"
	}
	return string(a)
}

// indexFor returns the name of the index of s whose first columns are
// cols (any case), "" for the primary key or none.
func indexFor(s *tables.Schema, cols []string) string {
	match := func(ps []int) bool {
		if len(ps) < len(cols) {
			return false
		}
		for i, c := range cols {
			if !strings.EqualFold(s.Columns[ps[i]].Name, c) {
				return false
			}
		}
		return true
	}
	if match(s.PrimaryKey) {
		return ""
	}
	for _, ix := range s.Indexes {
		if match(ix.Columns) {
			return ix.Name
		}
	}
	return ""
}

// positions returns the positions of cols (any case) in s.
func positions(s *tables.Schema, cols []string) ([]int, error) {
	out := make([]int, len(cols))
	for i, c := range cols {
		out[i] = -1
		for j, col := range s.Columns {
			if strings.EqualFold(col.Name, c) {
				out[i] = j
			}
		}
		if out[i] < 0 {
			return nil, fmt.Errorf("no column %q", c)
		}
	}
	return out, nil
}

// fkCheck is a foreign key of a table ready to check its rows.
type fkCheck struct {
	cols    []int
	parents map[string]bool // the parent rows' referenced values (prolly.EncodeKey)
	info    string
}

// tableViolations returns the violations of the rows of table (exact
// name) in the root.
func (v *verifier) tableViolations(ctx *sql.Context, table string) ([]tablemerge.Violation, error) {
	t, addr, err := v.load(ctx, table)
	if err != nil || t == nil {
		return nil, err
	}
	st, err := tableReader{v.db}.ReadTable(ctx, table, addr)
	if err != nil {
		return nil, err
	}
	s := t.Schema()
	var checks []compiledCheck
	for _, c := range s.Checks {
		if !c.Enforced {
			continue
		}
		e, err := compileCheck(ctx, v.db.Name(), table, st.Schema, c.Expr)
		if err != nil {
			return nil, err
		}
		checks = append(checks, compiledCheck{check: c, expr: e})
	}
	var fks []fkCheck
	for _, fk := range v.fks {
		if !strings.EqualFold(fk.Table, table) || fk.ParentDatabase != "" && !strings.EqualFold(fk.ParentDatabase, v.db.Name()) {
			continue
		}
		f, err := v.fkCheck(ctx, s, fk)
		if err != nil {
			return nil, fmt.Errorf("foreign key %s of table %q: %w", fk.Name, table, err)
		}
		fks = append(fks, f)
	}
	if len(checks) == 0 && len(fks) == 0 {
		return nil, nil
	}
	var out []tablemerge.Violation
	it := t.Scan(ctx, nil, nil, false)
	for it.Next(ctx) {
		row := it.Row()
		add := func(typ tablemerge.ViolationType, info string) {
			out = append(out, tablemerge.Violation{Type: typ, Key: t.KeyOf(row), Info: info, From: v.from, Row: row})
		}
		for _, f := range fks {
			vals := make([]tables.Value, len(f.cols))
			null := false
			for i, p := range f.cols {
				vals[i] = row[p]
				null = null || row[p].Kind() == prolly.KindNull
			}
			if !null && !f.parents[string(prolly.EncodeKey(nil, vals...))] {
				add(tablemerge.ForeignKeyViolation, f.info)
			}
		}
		if len(checks) == 0 {
			continue
		}
		sr, err := st.Row(row)
		if err != nil {
			return nil, err
		}
		for _, c := range checks {
			res, err := c.expr.Eval(ctx, sr)
			if err != nil {
				return nil, fmt.Errorf("check %s of table %q: %w", c.check.Name, table, err)
			}
			if res == nil {
				continue // NULL passes, as in MySQL
			}
			if ok, err := sql.ConvertToBool(ctx, res); err == nil && !ok {
				add(tablemerge.CheckViolation, tablemerge.ViolationInfo(
					tablemerge.InfoField{Name: "Name", Value: c.check.Name}, tablemerge.InfoField{Name: "Expression", Value: c.check.Expr}))
			}
		}
	}
	return out, it.Err()
}

// fkCheck prepares the foreign key fk of a table of schema s.
func (v *verifier) fkCheck(ctx *sql.Context, s *tables.Schema, fk sql.ForeignKeyConstraint) (fkCheck, error) {
	cols, err := positions(s, fk.Columns)
	if err != nil {
		return fkCheck{}, err
	}
	f := fkCheck{cols: cols, parents: map[string]bool{}}
	parent, ok, err := v.exactTable(ctx, fk.ParentTable)
	if err != nil {
		return f, err
	}
	refIndex := ""
	if ok {
		pt, _, err := v.load(ctx, parent)
		if err != nil {
			return f, err
		}
		ps, err := positions(pt.Schema(), fk.ParentColumns)
		if err != nil {
			return f, err
		}
		refIndex = indexFor(pt.Schema(), fk.ParentColumns)
		it := pt.Scan(ctx, nil, nil, false)
		for it.Next(ctx) {
			r := it.Row()
			vals := make([]tables.Value, len(ps))
			for i, p := range ps {
				vals[i] = r[p]
			}
			f.parents[string(prolly.EncodeKey(nil, vals...))] = true
		}
		if err := it.Err(); err != nil {
			return f, err
		}
	}
	f.info = tablemerge.ViolationInfo(
		tablemerge.InfoField{Name: "ForeignKey", Value: fk.Name},
		tablemerge.InfoField{Name: "Table", Value: fk.Table},
		tablemerge.InfoField{Name: "Index", Value: indexFor(s, fk.Columns)},
		tablemerge.InfoField{Name: "Columns", Value: fk.Columns},
		tablemerge.InfoField{Name: "ReferencedTable", Value: fk.ParentTable},
		tablemerge.InfoField{Name: "ReferencedIndex", Value: refIndex},
		tablemerge.InfoField{Name: "ReferencedColumns", Value: fk.ParentColumns},
		tablemerge.InfoField{Name: "OnUpdate", Value: fkAction(fk.OnUpdate)},
		tablemerge.InfoField{Name: "OnDelete", Value: fkAction(fk.OnDelete)},
	)
	return f, nil
}

// relatedTables returns the tables (exact names, sorted) whose
// constraints involve a table of names: the tables themselves and the
// children of their foreign keys.
func (v *verifier) relatedTables(ctx *sql.Context, names []string) ([]string, error) {
	set := map[string]bool{}
	for _, n := range names {
		if exact, ok, err := v.exactTable(ctx, n); err != nil {
			return nil, err
		} else if ok {
			set[exact] = true
		}
	}
	for _, fk := range v.fks {
		for _, n := range names {
			if strings.EqualFold(fk.ParentTable, n) {
				if exact, ok, err := v.exactTable(ctx, fk.Table); err != nil {
					return nil, err
				} else if ok {
					set[exact] = true
				}
			}
		}
	}
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return out, nil
}

// violationKey is a violation's identity across two roots: its key and
// its row.
func violationKey(x tablemerge.Violation) string {
	return string(x.MapKey()) + "\x00" + string(prolly.EncodeTuple(nil, x.Row...))
}

// newViolations returns the violations of the tables in root that prior
// (nil: none) does not have too, per table.
func newViolations(ctx *sql.Context, db *Database, root commitgraph.RootValue, prior *commitgraph.RootValue, names []string, from chunks.Address) (map[string][]tablemerge.Violation, error) {
	v, err := newVerifier(ctx, db, root, from)
	if err != nil {
		return nil, err
	}
	var pv *verifier
	if prior != nil {
		if pv, err = newVerifier(ctx, db, *prior, from); err != nil {
			return nil, err
		}
	}
	out := map[string][]tablemerge.Violation{}
	for _, n := range names {
		found, err := v.tableViolations(ctx, n)
		if err != nil || len(found) == 0 {
			if err != nil {
				return nil, err
			}
			continue
		}
		if pv != nil {
			old, err := pv.tableViolations(ctx, n)
			if err != nil {
				return nil, err
			}
			had := map[string]bool{}
			for _, x := range old {
				had[violationKey(x)] = true
			}
			kept := found[:0]
			for _, x := range found {
				if !had[violationKey(x)] {
					kept = append(kept, x)
				}
			}
			found = kept
		}
		if len(found) > 0 {
			out[n] = found
		}
	}
	return out, nil
}

// recordViolations returns root with the violations found added to each
// table's recorded ones.
func recordViolations(ctx context.Context, ns *prolly.NodeStore, root commitgraph.RootValue, found map[string][]tablemerge.Violation) (commitgraph.RootValue, error) {
	names := make([]string, 0, len(found))
	for n := range found {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		vs, err := tablemerge.GetViolations(ctx, ns, root, n)
		if err != nil {
			return root, err
		}
		addr, _, err := root.Get(ctx, commitgraph.TablePrefix+n)
		if err != nil {
			return root, err
		}
		t, err := tables.Load(ctx, ns, addr, sqlCollations{})
		if err != nil {
			return root, err
		}
		if vs == nil || !bytes.Equal(tables.EncodeSchema(vs.Schema), tables.EncodeSchema(t.Schema())) {
			vs = tablemerge.NewViolationSet(ns, t.Schema())
		}
		if vs, err = vs.Edit(ctx, found[n], nil); err != nil {
			return root, err
		}
		if root, err = tablemerge.SetViolations(ctx, root, n, vs); err != nil {
			return root, err
		}
	}
	return root, nil
}

// mergeVerifier is the verso.MergeOptions.Verify of a dolt_merge in db:
// the foreign keys and checks of the tables the merge changed (from ours
// to merged, and the children of their foreign keys), for rows that did
// not break them in ours already.
func mergeVerifier(ctx *sql.Context, db *Database) func(context.Context, commitgraph.RootValue, commitgraph.RootValue, chunks.Address) (commitgraph.RootValue, error) {
	return func(_ context.Context, ours, merged commitgraph.RootValue, theirs chunks.Address) (commitgraph.RootValue, error) {
		changed, err := verso.ChangedItems(ctx, ours, merged)
		if err != nil {
			return merged, err
		}
		var names []string
		for _, c := range changed {
			if c.IsTable && c.InTo {
				names = append(names, c.Name)
			}
		}
		if len(names) == 0 {
			return merged, nil
		}
		v, err := newVerifier(ctx, db, merged, theirs)
		if err != nil {
			return merged, err
		}
		related, err := v.relatedTables(ctx, names)
		if err != nil {
			return merged, err
		}
		found, err := newViolations(ctx, db, merged, &ours, related, theirs)
		if err != nil {
			return merged, err
		}
		return recordViolations(ctx, db.st.graph.NodeStore(), merged, found)
	}
}
