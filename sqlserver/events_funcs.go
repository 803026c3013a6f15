package sqlserver

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso/systables"
)

// The table functions that read the event log in pages, with
// dolt_events' columns: dolt_read_all(filter [, from_position [,
// max_count]]) and dolt_read_stream(stream [, from_event_number [,
// max_count [, 'backwards']]]). Their arguments and reads are package
// systables' (ReadEvents); this is the engine's node.

// eventTableFunctions are the table functions of the event log.
var eventTableFunctions = []sql.TableFunction{&eventReadFunc{name: systables.ReadAllName}, &eventReadFunc{name: systables.ReadStreamName}}

// eventReadFunc is dolt_read_all or dolt_read_stream, called with args.
type eventReadFunc struct {
	name string
	db   *Database
	args []sql.Expression
}

var (
	_ sql.TableFunction      = (*eventReadFunc)(nil)
	_ sql.ExecSourceRel      = (*eventReadFunc)(nil)
	_ sql.CollationCoercible = (*eventReadFunc)(nil)
)

// NewInstance implements sql.TableFunction.
func (f *eventReadFunc) NewInstance(ctx *sql.Context, db sql.Database, args []sql.Expression) (sql.Node, error) {
	maxArgs := 3
	if f.name == systables.ReadStreamName {
		maxArgs = 4
	}
	if len(args) < 1 || len(args) > maxArgs {
		return nil, sql.ErrInvalidArgumentNumber.New(f.name, fmt.Sprintf("1 to %d", maxArgs), len(args))
	}
	vdb, ok := db.(*Database)
	if !ok || vdb == nil || vdb.temp {
		return nil, fmt.Errorf("verso: %s reads the event log of the current database: USE one first", f.name)
	}
	return &eventReadFunc{name: f.name, db: vdb, args: args}, nil
}

func (f *eventReadFunc) Name() string { return f.name }

func (f *eventReadFunc) String() string {
	parts := make([]string, len(f.args))
	for i, a := range f.args {
		parts[i] = a.String()
	}
	return fmt.Sprintf("%s(%s)", f.name, strings.Join(parts, ", "))
}

func (f *eventReadFunc) Description() string { return "reads the event log in pages" }

func (f *eventReadFunc) Resolved() bool {
	for _, a := range f.args {
		if !a.Resolved() {
			return false
		}
	}
	return true
}

func (f *eventReadFunc) IsReadOnly() bool               { return true }
func (f *eventReadFunc) Schema(*sql.Context) sql.Schema { return systables.EventSchema(f.name) }
func (f *eventReadFunc) Children() []sql.Node           { return nil }
func (f *eventReadFunc) Expressions() []sql.Expression  { return f.args }
func (f *eventReadFunc) Database() sql.Database         { return f.db }
func (f *eventReadFunc) Collation() sql.CollationID     { return sql.Collation_Default }
func (f *eventReadFunc) WithDatabase(db sql.Database) (sql.Node, error) {
	vdb, ok := db.(*Database)
	if !ok {
		return nil, fmt.Errorf("verso: %s needs a verso database, not %T", f.name, db)
	}
	nf := *f
	nf.db = vdb
	return &nf, nil
}

func (f *eventReadFunc) WithChildren(_ *sql.Context, children ...sql.Node) (sql.Node, error) {
	if len(children) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(f, len(children), 0)
	}
	return f, nil
}

func (f *eventReadFunc) WithExpressions(_ *sql.Context, exprs ...sql.Expression) (sql.Node, error) {
	if len(exprs) != len(f.args) {
		return nil, sql.ErrInvalidChildrenNumber.New(f, len(exprs), len(f.args))
	}
	nf := *f
	nf.args = exprs
	return &nf, nil
}

// CollationCoercibility implements sql.CollationCoercible.
func (f *eventReadFunc) CollationCoercibility(*sql.Context) (sql.CollationID, byte) {
	return sql.Collation_binary, 7
}

// RowIter implements sql.ExecSourceRel.
func (f *eventReadFunc) RowIter(ctx *sql.Context, row sql.Row) (sql.RowIter, error) {
	vals := make([]any, len(f.args))
	for i, a := range f.args {
		v, err := a.Eval(ctx, row)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	return systables.ReadEvents(ctx, f.db.sessionView(), f.name, vals)
}
