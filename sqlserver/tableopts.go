package sqlserver

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/tables"
)

// A table's options that storage's schema does not hold (its comment,
// default collation and, once renamed, the name it was created with) are
// an object named "tableopts/<table>" whose layout package verso owns
// (verso.TableOptions). A table with no comment, the default collation
// and its own name has none.
const tableOptsPrefix = commitgraph.TableOptsPrefix

func readTableOptions(ctx *sql.Context, st *dbState, name string, addr chunks.Address) (string, sql.CollationID, error) {
	b, err := st.graph.Store().Get(ctx, addr)
	if err != nil {
		return "", 0, err
	}
	o, err := verso.DecodeTableOptions(name, b)
	if err != nil {
		return "", 0, err
	}
	if o.Collation == "" {
		return o.Comment, sql.Collation_Default, nil
	}
	c, err := sql.ParseCollation("", o.Collation, false)
	if err != nil {
		return "", 0, fmt.Errorf("%w: table %q: collation %q: %v", tables.ErrCorrupt, name, o.Collation, err)
	}
	return o.Comment, c, nil
}

// tableOptionsEdit returns the root edit that gives table name these
// options (or none). origin is the name the table was created with ("" or
// name itself: none).
func tableOptionsEdit(ctx *sql.Context, st *dbState, name, comment string, c sql.CollationID, origin string) (commitgraph.RootEdit, error) {
	if strings.EqualFold(origin, name) {
		origin = ""
	}
	if comment == "" && (c == sql.Collation_Default || c == sql.Collation_Unspecified) && origin == "" {
		return commitgraph.RootEdit{Name: tableOptsPrefix + name, Delete: true}, nil
	}
	o := verso.TableOptions{Comment: comment, Origin: origin}
	if c != sql.Collation_Unspecified && c != sql.Collation_Default {
		o.Collation = c.Name()
	}
	addr, err := st.graph.Store().Put(ctx, verso.EncodeTableOptions(o))
	if err != nil {
		return commitgraph.RootEdit{}, err
	}
	return commitgraph.RootEdit{Name: tableOptsPrefix + name, Addr: addr}, nil
}

// Comment implements sql.CommentedTable.
func (t *Table) Comment() string { return t.info.comment }

var (
	_ sql.CommentAlterableTable   = (*Table)(nil)
	_ sql.CollationAlterableTable = (*Table)(nil)
)

// setOptions gives the table a new comment and default collation.
func (t *Table) setOptions(ctx *sql.Context, comment string, c sql.CollationID) error {
	d, err := t.db.tx(ctx)
	if err != nil {
		return err
	}
	exact, _, ok, err := verso.FindTable(ctx, d.Root(), t.name)
	if err != nil {
		return err
	}
	if !ok {
		return sql.ErrTableNotFound.New(t.name)
	}
	origin, err := verso.TableOrigin(ctx, d.Root(), exact)
	if err != nil {
		return err
	}
	edit, err := tableOptionsEdit(ctx, t.db.st, exact, comment, c, origin)
	if err != nil {
		return err
	}
	root, err := d.Root().Edit(ctx, edit)
	if err != nil {
		return err
	}
	d.SetRoot(root)
	t.refresh(ctx, d, exact)
	return nil
}

// ModifyComment implements sql.CommentAlterableTable.
func (t *Table) ModifyComment(ctx *sql.Context, comment string) error {
	return t.setOptions(ctx, comment, t.info.collation)
}

// ModifyDefaultCollation implements sql.CollationAlterableTable: the
// default for columns added later; existing columns keep theirs.
func (t *Table) ModifyDefaultCollation(ctx *sql.Context, c sql.CollationID) error {
	return t.setOptions(ctx, t.info.comment, c)
}

// ModifyStoredCollation implements sql.CollationAlterableTable (ALTER
// TABLE ... CONVERT TO CHARACTER SET), not supported yet: it would rewrite
// every text column.
func (t *Table) ModifyStoredCollation(ctx *sql.Context, c sql.CollationID) error {
	return fmt.Errorf("verso does not support ALTER TABLE ... CONVERT TO CHARACTER SET yet")
}
