package sqlserver

import (
	"context"
	"crypto/sha512"
	"fmt"
	"io"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/tables"
)

// Table is a table of a transaction's snapshot, as the engine sees it: an
// immutable tables.Table and its engine schema. Writes go through editors
// (editor.go) that share one tables.Editor per table and transaction.
type Table struct {
	db     *Database
	name   string
	info   *tableInfo
	lookup *sql.IndexLookup // set on a table returned by IndexedAccess
	proj   *projection      // set on a table returned by WithProjections
	// lock, if not nil, makes reads lock the rows they return and return
	// their latest versions (rowlocks.go).
	lock *lockClause
}

var (
	_ sql.Table                 = (*Table)(nil)
	_ sql.TemporaryTable        = (*Table)(nil)
	_ sql.PrimaryKeyTable       = (*Table)(nil)
	_ sql.InsertableTable       = (*Table)(nil)
	_ sql.UpdatableTable        = (*Table)(nil)
	_ sql.DeletableTable        = (*Table)(nil)
	_ sql.ReplaceableTable      = (*Table)(nil)
	_ sql.AutoIncrementTable    = (*Table)(nil)
	_ sql.IndexAddressableTable = (*Table)(nil)
	_ sql.IndexedTable          = (*Table)(nil)
	_ sql.IndexAlterableTable   = (*Table)(nil)
	_ sql.StatisticsTable       = (*Table)(nil)
	_ sql.CheckTable            = (*Table)(nil)
	_ sql.CheckAlterableTable   = (*Table)(nil)
)

// Name implements sql.Nameable.
func (t *Table) Name() string { return t.name }

func (t *Table) String() string { return t.name }

// Schema implements sql.Table.
// With a projection, only the projected columns (see project.go).
func (t *Table) Schema(*sql.Context) sql.Schema {
	if t.proj != nil {
		return t.proj.sch
	}
	return t.info.sch.Schema
}

// PrimaryKeySchema implements sql.PrimaryKeyTable.
func (t *Table) PrimaryKeySchema(*sql.Context) sql.PrimaryKeySchema { return t.info.sch }

// Collation implements sql.Table: the table's default collation (columns
// carry their own).
func (t *Table) Collation() sql.CollationID { return t.info.collation }

// IsTemporary implements sql.TemporaryTable.
func (t *Table) IsTemporary() bool { return t.db.temp }

// DataLength implements sql.StatisticsTable (an estimate).
func (t *Table) DataLength(*sql.Context) (uint64, error) {
	return t.info.t.Count() * 64, nil
}

// RowCount implements sql.StatisticsTable: exact for tables with a primary
// key (the row map's count, O(1)).
func (t *Table) RowCount(*sql.Context) (uint64, bool, error) {
	return t.info.t.Count(), !t.info.t.Schema().Keyless(), nil
}

// partition is the one partition of a table, or of an index lookup.
type partition struct{ lookup *sql.IndexLookup }

func (partition) Key() []byte { return []byte("all") }

// Partitions implements sql.Table: one partition.
func (t *Table) Partitions(*sql.Context) (sql.PartitionIter, error) {
	return sql.PartitionsToPartitionIter(partition{lookup: t.lookup}), nil
}

// PartitionRows implements sql.Table.
func (t *Table) PartitionRows(ctx *sql.Context, p sql.Partition) (sql.RowIter, error) {
	lookup := t.lookup
	if pp, ok := p.(partition); ok && pp.lookup != nil {
		lookup = pp.lookup
	}
	tbl := t.readable(ctx)
	if lookup != nil {
		return t.lookupRows(ctx, tbl, *lookup)
	}
	r, _, err := t.newRowIter(tbl, []span{{index: -1}}, false, nil)
	return r, err
}

// readable returns the table value to read: the engine's, or, when a
// statement of the transaction completed writes to the table since the
// engine resolved it (a trigger's statement earlier in the same outer
// statement), the table as those writes left it. Writes of statements
// still running are not seen, so an UPDATE does not meet its own rows.
func (t *Table) readable(ctx *sql.Context) *tables.Table {
	d, err := t.db.tx(ctx)
	if err != nil {
		return t.info.t
	}
	w, ok := d.writers[strings.ToLower(t.name)]
	if !ok || !strings.EqualFold(w.name, t.name) || w.base == t.info.addr {
		return t.info.t
	}
	info, err := t.db.p.cache.get(ctx, t.db, w.name, w.base, chunks.Address{})
	if err != nil || len(info.t.Schema().Columns) != len(t.info.sch.Schema) {
		return t.info.t
	}
	return info.t
}

// span is a key range of the row map (index < 0) or of secondary index
// index: lo <= k < hi, nil bounds open.
type span struct {
	index  int
	lo, hi []byte
}

// rowIter converts the stored rows of a list of spans to engine rows.
type rowIter struct {
	t       *Table
	tbl     *tables.Table // the table value read
	spans   []span
	reverse bool
	it      *tables.RowIter
	// filter, if not nil, keeps only the rows it holds for.
	filter sql.Expression
	// proj, if not nil, is the columns read; sch is their engine schema,
	// and the first width of them are the row the engine gets (the others
	// are for filter).
	proj  *tables.Projection
	sch   sql.Schema
	width int
	// cur is the span being read.
	cur span
	// lock is how rows are read: locked, or (nil) from the snapshot;
	// decided at the first row (lockplan.go).
	lock    *lockClause
	started bool
	read    int          // rows read, for the context checks
	slab    rowSlab[any] // the rows' values
}

func (r *rowIter) Next(ctx *sql.Context) (sql.Row, error) {
	for {
		if r.read++; r.read%scanCheck == 0 && ctx.Err() != nil {
			return nil, context.Cause(ctx) // the statement was stopped (interrupt.go)
		}
		if r.it == nil {
			if len(r.spans) == 0 {
				return nil, io.EOF
			}
			s := r.spans[0]
			r.spans = r.spans[1:]
			r.cur = s
			if s.index < 0 {
				r.it = r.tbl.Scan(ctx, s.lo, s.hi, r.reverse)
			} else {
				r.it = r.tbl.ScanIndex(ctx, s.index, s.lo, s.hi, r.reverse)
			}
			if r.proj != nil {
				// Each row's stored values are converted (toRow) before
				// the next is read.
				r.it.Project(r.proj).ReuseRow()
			}
		}
		if r.it.Next(ctx) {
			vals := r.it.Row()
			if !r.started {
				r.started = true
				r.lock = r.t.readLock(ctx)
			}
			if r.lock != nil {
				v, keep, err := r.locked(ctx)
				if err != nil {
					return nil, err
				}
				if !keep {
					continue
				}
				vals = v
			}
			row, err := r.toRow(vals)
			if err != nil {
				return nil, err
			}
			if r.filter != nil {
				ok, err := sql.EvaluateCondition(ctx, r.filter, row)
				if err != nil {
					return nil, err
				}
				if !sql.IsTrue(ok) {
					continue
				}
			}
			if r.proj != nil {
				row = row[:r.width:r.width]
			}
			return row, nil
		}
		if err := r.it.Err(); err != nil {
			return nil, err
		}
		r.it = nil
	}
}

func (r *rowIter) Close(*sql.Context) error { return nil }

func (r *rowIter) toRow(vals []tables.Value) (sql.Row, error) {
	if r.proj == nil {
		return r.t.toRow(vals)
	}
	return r.t.toProjectedRow(r.sch, vals, r.slab.row(len(vals)))
}

// toRow converts a stored row.
func (t *Table) toRow(vals []tables.Value) (sql.Row, error) {
	return t.toProjectedRow(t.info.sch.Schema, vals, nil)
}

// toStored converts an engine row.
func (t *Table) toStored(ctx *sql.Context, row sql.Row) ([]tables.Value, error) {
	sch := t.info.sch.Schema
	if len(row) != len(sch) {
		return nil, fmt.Errorf("verso: row of %d values for table %q of %d columns", len(row), t.name, len(sch))
	}
	out := make([]tables.Value, len(row))
	for i, v := range row {
		x, err := toValue(ctx, sch[i].Type, v)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", sch[i].Name, err)
		}
		out[i] = x
	}
	return out, nil
}

// GetChecks implements sql.CheckTable.
func (t *Table) GetChecks(*sql.Context) ([]sql.CheckDefinition, error) {
	var out []sql.CheckDefinition
	for _, c := range t.info.t.Schema().Checks {
		out = append(out, sql.CheckDefinition{Name: c.Name, CheckExpression: c.Expr, Enforced: c.Enforced})
	}
	return out, nil
}

// CreateCheck implements sql.CheckAlterableTable.
func (t *Table) CreateCheck(ctx *sql.Context, c *sql.CheckDefinition) error {
	return t.alterSchema(ctx, func(s *tables.Schema) error {
		for _, x := range s.Checks {
			if strings.EqualFold(x.Name, c.Name) {
				return sql.ErrDuplicateCheckName.New(c.Name)
			}
		}
		name := c.Name
		if name == "" {
			name = checkName(t.name, c.CheckExpression, s.Checks)
		}
		s.Checks = append(s.Checks, tables.Check{Name: name, Expr: c.CheckExpression, Enforced: c.Enforced})
		return nil
	})
}

// checkName names an unnamed check of table as Dolt does: the table's
// name, "_chk_" and the first 8 characters of the expression's hash (the
// first 20 bytes of its SHA-512, in base32 as commit hashes are written),
// then "_0", "_1", ... if another check of the table has that name. A
// name that depends on the expression alone keeps a check's name the same
// on two branches, which merges and patches rely on.
func checkName(table, expr string, checks []tables.Check) string {
	sum := sha512.Sum512([]byte(expr))
	var a chunks.Address
	copy(a[:], sum[:])
	base := table + "_chk_" + a.String()[:8]
	name := base
	for i := 0; ; i++ {
		taken := false
		for _, c := range checks {
			if strings.EqualFold(c.Name, name) {
				taken = true
			}
		}
		if !taken {
			return name
		}
		name = fmt.Sprintf("%s_%d", base, i)
	}
}

// DropCheck implements sql.CheckAlterableTable.
func (t *Table) DropCheck(ctx *sql.Context, name string) error {
	return t.alterSchema(ctx, func(s *tables.Schema) error {
		for i, x := range s.Checks {
			if strings.EqualFold(x.Name, name) {
				s.Checks = append(s.Checks[:i], s.Checks[i+1:]...)
				return nil
			}
		}
		return sql.ErrUnknownConstraint.New(name)
	})
}

// CreateIndex implements sql.IndexAlterableTable.
func (t *Table) CreateIndex(ctx *sql.Context, def sql.IndexDef) error {
	if def.IsPrimary() {
		return fmt.Errorf("verso does not support adding a primary key to an existing table yet")
	}
	return t.alterSchema(ctx, func(s *tables.Schema) error {
		if s.IndexByName(def.Name) >= 0 || strings.EqualFold(def.Name, tables.PrimaryIndexName) {
			return sql.ErrDuplicateKey.New(def.Name)
		}
		ix, err := storageIndex(s, &def)
		if err != nil {
			return err
		}
		s.Indexes = append(s.Indexes, ix)
		return nil
	})
}

// DropIndex implements sql.IndexAlterableTable.
func (t *Table) DropIndex(ctx *sql.Context, name string) error {
	return t.alterSchema(ctx, func(s *tables.Schema) error {
		i := s.IndexByName(name)
		if i < 0 {
			return sql.ErrIndexNotFound.New(name)
		}
		s.Indexes = append(s.Indexes[:i], s.Indexes[i+1:]...)
		return nil
	})
}

// RenameIndex implements sql.IndexAlterableTable.
func (t *Table) RenameIndex(ctx *sql.Context, from, to string) error {
	return t.alterSchema(ctx, func(s *tables.Schema) error {
		i := s.IndexByName(from)
		if i < 0 {
			return sql.ErrIndexNotFound.New(from)
		}
		if j := s.IndexByName(to); j >= 0 && j != i {
			return sql.ErrDuplicateKey.New(to)
		}
		s.Indexes[i].Name = to
		return nil
	})
}

// alterSchema rebuilds the transaction's current version of the table
// with the schema that change makes: a new table, every row inserted again
// (so indexes are built and unique ones checked). O(rows).
func (t *Table) alterSchema(ctx *sql.Context, change func(*tables.Schema) error) error {
	d, err := t.db.tx(ctx)
	if err != nil {
		return err
	}
	if err := d.flushAll(ctx); err != nil {
		return err
	}
	exact, _, ok, err := verso.FindTable(ctx, d.Root(), t.name)
	if err != nil {
		return err
	}
	if !ok {
		return sql.ErrTableNotFound.New(t.name)
	}
	if _, err := d.AlterTable(ctx, exact, change); err != nil {
		return t.editError(ctx, err) // a duplicate as the engine reports one
	}
	delete(d.writers, strings.ToLower(exact))
	t.refresh(ctx, d, exact)
	return nil
}

// refresh points t at the transaction's current value of the table, after
// a schema change: the engine keeps using t within the statement (CREATE
// TABLE adds index after index to the same table object).
func (t *Table) refresh(ctx *sql.Context, d *txDB, exact string) {
	_, addr, ok, err := verso.FindTable(ctx, d.Root(), exact)
	if err != nil || !ok {
		return
	}
	opts, _, err := d.Root().Get(ctx, tableOptsPrefix+exact)
	if err != nil {
		return
	}
	if info, err := t.db.p.cache.get(ctx, t.db, exact, addr, opts); err == nil {
		t.info = info
	}
}

var _ sql.TruncateableTable = (*Table)(nil)

// Truncate implements sql.TruncateableTable: the table is replaced by an
// empty one of the same schema, its auto-increment counter reset.
func (t *Table) Truncate(ctx *sql.Context) (int, error) {
	d, err := t.db.tx(ctx)
	if err != nil {
		return 0, err
	}
	cur, err := t.current(ctx)
	if err != nil {
		return 0, err
	}
	n := int(cur.Count())
	if cur.Schema().Keyless() {
		n = 0
		it := cur.Scan(ctx, nil, nil, false)
		for it.Next(ctx) {
			n++
		}
		if err := it.Err(); err != nil {
			return 0, err
		}
	}
	nt, err := tables.New(t.db.st.graph.NodeStore(), cur.Schema(), sqlCollations{})
	if err != nil {
		return 0, err
	}
	exact, _, _, err := verso.FindTable(ctx, d.Root(), t.name)
	if err != nil {
		return 0, err
	}
	delete(d.writers, strings.ToLower(exact))
	t.db.setAutoIncrement(exact, 0)
	_, err = d.putTable(ctx, exact, nt)
	return n, err
}
