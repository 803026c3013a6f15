package systables

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/tables"
)

// PatchName is the table function of the SQL statements that turn one
// revision into another.
const PatchName = "dolt_patch"

// PatchSchema is dolt_patch's, as Dolt declares it.
var PatchSchema = sql.Schema{
	&sql.Column{Name: "statement_order", Type: types.Uint64, PrimaryKey: true, Source: PatchName},
	col(PatchName, "from_commit_hash", types.LongText, false),
	col(PatchName, "to_commit_hash", types.LongText, false),
	col(PatchName, "table_name", types.LongText, false),
	col(PatchName, "diff_type", types.LongText, false),
	col(PatchName, "statement", types.LongText, false),
}

// Patch returns dolt_patch's rows: the statements that turn a's from
// revision into its to revision, table by table in the order of their
// names at to (a's table only, if it has one), each table's schema
// statements (diff_type "schema") before its data statements ("data"),
// numbered from 1. from_commit_hash and to_commit_hash are the commits'
// hashes, or WORKING or STAGED.
//
// Schema statements: CREATE TABLE for an added table, DROP TABLE for a
// dropped one, RENAME TABLE for a renamed one, then ALTER TABLE for each
// column dropped, renamed, redefined or added, a primary key changed,
// each index and check dropped or added, and the table's collation and
// comment. Data statements, in key order: INSERT of an added row, DELETE
// of a removed one (by its key; by all its values, LIMIT 1, for a copy of
// a keyless row), UPDATE of the columns whose values changed. A dropped
// table has no data statements; a table whose primary key changed has
// none either, with a warning. The cost follows the size of the change.
//
// Where Dolt's statements would not rebuild the to revision, verso's do:
// a keyless table's added copies are each inserted, and each removed copy
// deleted with LIMIT 1; a BIT value is written b'...'; a unique index is
// added as UNIQUE; a column's other attributes than its type (NULL,
// default, comment) are redefined too; a column added between others is
// added there (AFTER), not last.
func Patch(ctx *sql.Context, v *View, a DiffArgs) ([]sql.Row, error) {
	rf, rt, err := v.revisionEnds(ctx, a)
	if err != nil {
		return nil, err
	}
	ds, err := v.tableDeltas(ctx, rf.root, rt.root)
	if err != nil {
		return nil, err
	}
	sortByToName(ds)
	if a.HasTable {
		d := matchingDelta(ds, a.Table)
		if d == nil {
			u, err := v.unchangedDelta(ctx, rf.root, rt.root, a.Table)
			if err != nil {
				return nil, err
			}
			if u == nil {
				return nil, sql.ErrTableNotFound.New(a.Table)
			}
			return nil, nil
		}
		ds = []*tableDelta{d}
	}
	var out []sql.Row
	emit := func(d *tableDelta, typ string, stmts []string) {
		for _, s := range stmts {
			out = append(out, sql.Row{uint64(len(out) + 1), rf.hash(), rt.hash(), d.name(), typ, s})
		}
	}
	for _, d := range ds {
		stmts, err := v.schemaStatements(ctx, rf.root, rt.root, d)
		if err != nil {
			return nil, err
		}
		emit(d, "schema", stmts)
		if d.isDrop() {
			continue
		}
		if d.primaryKeyChanged() {
			ctx.Warn(mysql.ERNotSupportedYet, "Primary key sets differ between revisions for table '%s', skipping data diff", d.toName)
			continue
		}
		if stmts, err = dataStatements(ctx, d); err != nil {
			return nil, err
		}
		emit(d, "data", stmts)
	}
	return out, nil
}

// schemaStatements returns the statements that turn the table's
// definition at from into its definition at to.
func (v *View) schemaStatements(ctx *sql.Context, from, to commitgraph.RootValue, d *tableDelta) ([]string, error) {
	switch {
	case d.isDrop():
		return []string{dropTableStmt(d.fromName)}, nil
	case d.isAdd():
		s, err := v.createStatement(ctx, to, d.toName)
		return []string{s}, err
	}
	fd, err := v.definition(ctx, from, d.fromName)
	if err != nil {
		return nil, err
	}
	td, err := v.definition(ctx, to, d.toName)
	if err != nil {
		return nil, err
	}
	var out []string
	if d.fromName != d.toName {
		out = append(out, renameTableStmt(d.fromName, d.toName))
	}
	if body(fd.Create) == body(td.Create) {
		return out, nil
	}
	alter := func(clause string) { out = append(out, alterStmt(d.toName, clause)) }
	fs, ts := fd.Schema, td.Schema
	m := matchColumns(fs, ts)
	if d.from.Table.Rows().Address() == d.to.Table.Rows().Address() {
		// Rows stored unchanged: no column was added or dropped, and
		// one at the same place with the same type is the same column
		// (ALTER ... RENAME COLUMN keeps the rows).
		m.pairByPosition()
	}
	fromKey, toKey := keyColumns(fs), keyColumns(ts)
	for i, c := range fs.Columns {
		j := m.toOf[i]
		switch {
		case j < 0:
			alter("DROP " + quoteName(c.Name))
		case fromKey[i] != toKey[j]:
			// a primary key change, below
		default:
			if c.Name != ts.Columns[j].Name {
				alter("RENAME COLUMN " + quoteName(c.Name) + " TO " + quoteName(ts.Columns[j].Name))
			}
			if afterName(fd.Columns[i], c.Name) != afterName(td.Columns[j], ts.Columns[j].Name) {
				alter("MODIFY COLUMN " + td.Columns[j])
			}
		}
	}
	for _, j := range m.added {
		// Appended, unless the column sits before others of the to
		// side: then after the one before it (or first).
		switch {
		case j == len(ts.Columns)-1:
			alter("ADD " + td.Columns[j])
		case j == 0:
			alter("ADD " + td.Columns[j] + " FIRST")
		default:
			alter("ADD " + td.Columns[j] + " AFTER " + quoteName(ts.Columns[j-1].Name))
		}
	}
	if fk, tk := keyNames(fs), keyNames(ts); fk != tk {
		alter("DROP PRIMARY KEY")
		if len(ts.PrimaryKey) > 0 {
			var cols []string
			for _, p := range ts.PrimaryKey {
				cols = append(cols, quoteName(ts.Columns[p].Name))
			}
			alter("ADD PRIMARY KEY (" + strings.Join(cols, ",") + ")")
		}
	}
	for i := range fs.Indexes {
		j := ts.IndexByName(fs.Indexes[i].Name)
		if j < 0 || indexClause(fs, i) != indexClause(ts, j) {
			alter("DROP INDEX " + quoteName(fs.Indexes[i].Name))
		}
	}
	for j := range ts.Indexes {
		i := fs.IndexByName(ts.Indexes[j].Name)
		if i < 0 || indexClause(fs, i) != indexClause(ts, j) {
			alter(indexClause(ts, j))
		}
	}
	for _, c := range fs.Checks {
		if tc, ok := checkNamed(ts, c.Name); !ok || tc != c {
			alter("DROP CONSTRAINT " + quoteName(c.Name))
		}
	}
	for _, c := range ts.Checks {
		if fc, ok := checkNamed(fs, c.Name); !ok || fc != c {
			clause := "ADD CONSTRAINT " + quoteName(c.Name) + " CHECK (" + c.Expr + ")"
			if !c.Enforced {
				clause += " NOT ENFORCED"
			}
			alter(clause)
		}
	}
	if fd.Collation != td.Collation {
		alter("COLLATE=" + quoteString(td.Collation))
	}
	if fd.Comment != td.Comment {
		alter("COMMENT=" + quoteString(td.Comment))
	}
	return out, nil
}

// body returns a CREATE TABLE statement without its table name.
func body(create string) string {
	if i := strings.Index(create, " (\n"); i >= 0 {
		return create[i:]
	}
	return create
}

// afterName returns a column definition without the column's name.
func afterName(def, name string) string { return strings.TrimPrefix(def, quoteName(name)) }

// keyColumns marks the columns of s in its primary key.
func keyColumns(s *tables.Schema) []bool {
	out := make([]bool, len(s.Columns))
	for _, p := range s.PrimaryKey {
		out[p] = true
	}
	return out
}

// keyNames returns the names of s's primary key columns, in key order.
func keyNames(s *tables.Schema) string {
	var names []string
	for _, p := range s.PrimaryKey {
		names = append(names, strings.ToLower(s.Columns[p].Name))
	}
	return strings.Join(names, "\x00")
}

func checkNamed(s *tables.Schema, name string) (tables.Check, bool) {
	for _, c := range s.Checks {
		if strings.EqualFold(c.Name, name) {
			return c, true
		}
	}
	return tables.Check{}, false
}

// pairByPosition pairs the columns left unmatched by name that sit at the
// same position with the same type: a rename.
func (m *columnMatch) pairByPosition() {
	var still []int
	for _, j := range m.added {
		if j < len(m.toOf) && m.toOf[j] < 0 && m.from.Columns[j].Type == m.to.Columns[j].Type {
			m.toOf[j] = j
			continue
		}
		still = append(still, j)
	}
	m.added = still
}

// dataStatements returns the INSERT, DELETE and UPDATE statements that
// turn the table's rows at from into its rows at to, in key order.
func dataStatements(ctx *sql.Context, d *tableDelta) ([]string, error) {
	to := d.to
	ts := to.Table.Schema()
	keyless := ts.Keyless()
	isKey := keyColumns(ts)
	var fromOf []int // the from column of each to column, or -1
	if d.from != nil {
		fromOf = columnMapping(to.Schema, d.from)
	}
	name := quoteName(d.toName)
	var cols []string
	for _, c := range to.Schema {
		cols = append(cols, quoteName(c.Name))
	}
	insertPrefix := "INSERT INTO " + name + " (" + strings.Join(cols, ",") + ") VALUES ("
	// where writes the condition on row, of to's columns, that finds it.
	where := func(row sql.Row) (string, error) {
		var conds []string
		for j, c := range to.Schema {
			if !keyless && !isKey[j] {
				continue
			}
			if row[j] == nil {
				conds = append(conds, quoteName(c.Name)+" IS NULL")
				continue
			}
			lit, err := sqlLiteral(ctx, c.Type, row[j])
			if err != nil {
				return "", err
			}
			conds = append(conds, quoteName(c.Name)+"="+lit)
		}
		return " WHERE " + strings.Join(conds, " AND "), nil
	}
	var out []string
	err := diffRows(ctx, d.from, d.to, func(c rowChange) error {
		var fromRow, toRow sql.Row
		var err error
		if c.from != nil {
			if fromRow, err = d.from.Row(c.from); err != nil {
				return err
			}
		}
		if c.to != nil {
			if toRow, err = to.Row(c.to); err != nil {
				return err
			}
		}
		var stmt string
		switch c.diffType() {
		case DiffAdded:
			vals := make([]string, len(toRow))
			for j, col := range to.Schema {
				if vals[j], err = sqlLiteral(ctx, col.Type, toRow[j]); err != nil {
					return err
				}
			}
			stmt = insertPrefix + strings.Join(vals, ",") + ");"
		case DiffRemoved:
			old := make(sql.Row, len(to.Schema))
			if err := mapRow(ctx, old, to.Schema, fromRow, d.from.Schema, fromOf); err != nil {
				return err
			}
			w, err := where(old)
			if err != nil {
				return err
			}
			stmt = "DELETE FROM " + name + w
			if keyless {
				stmt += " LIMIT 1"
			}
			stmt += ";"
		default:
			var sets []string
			for j, col := range to.Schema {
				if isKey[j] {
					continue
				}
				var was any
				if fromOf[j] >= 0 {
					was = fromRow[fromOf[j]]
				}
				if same, err := sameValue(ctx, col.Type, was, toRow[j]); err != nil || same {
					if err != nil {
						return err
					}
					continue
				}
				lit, err := sqlLiteral(ctx, col.Type, toRow[j])
				if err != nil {
					return err
				}
				sets = append(sets, quoteName(col.Name)+"="+lit)
			}
			if len(sets) == 0 {
				return nil
			}
			w, err := where(toRow)
			if err != nil {
				return err
			}
			stmt = "UPDATE " + name + " SET " + strings.Join(sets, ",") + w + ";"
		}
		for i := 0; i < c.copies; i++ {
			out = append(out, stmt)
		}
		return nil
	})
	return out, err
}

// sameValue reports whether two values of a column (the first possibly of
// another type, from before a schema change) are equal.
func sameValue(ctx *sql.Context, t sql.Type, a, b any) (bool, error) {
	if a == nil || b == nil {
		return a == nil && b == nil, nil
	}
	c, err := t.Compare(ctx, a, b)
	if err != nil {
		return false, nil
	}
	return c == 0, nil
}
