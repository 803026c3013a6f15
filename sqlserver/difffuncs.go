package sqlserver

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso/systables"
)

// The arguments of the diff table functions, read as Dolt reads them and
// refused in its words: the count first ("function 'dolt_diff' expected
// 2 to 3 arguments, 0 received", error 1105 as Dolt sends it for its own
// functions: mysqlerrors.go), then each argument's type ("Invalid
// argument to dolt_diff: NULL"; dolt_diff checks the table first, the
// others the revisions first), then the values. The logic of each
// function is package systables'.

// errNonLiteral is Dolt's refusal of an argument that is a function call
// or a column reference.
const errNonLiteral = "Invalid argument to %s: %s – only literal values supported"

// literalArgs refuses arguments that are not constants: function calls,
// column references, unresolved expressions, parameters.
func literalArgs(ctx *sql.Context, name string, args []sql.Expression) error {
	for _, a := range args {
		if _, bind := a.(*expression.BindVar); bind {
			return fmt.Errorf("%s: arguments must be constants, not parameters", name)
		}
		if !a.Resolved() || isFunction(a) || refersToColumn(ctx, a) {
			return fmt.Errorf(errNonLiteral, name, a.String())
		}
	}
	return nil
}

func isFunction(e sql.Expression) bool {
	_, ok := e.(sql.FunctionExpression)
	return ok
}

func refersToColumn(ctx *sql.Context, e sql.Expression) bool {
	return transform.InspectExpr(ctx, e, func(ctx *sql.Context, e sql.Expression) bool {
		_, ok := e.(*expression.GetField)
		return ok
	})
}

// textArg checks that an argument is of a text type, as Dolt does.
func textArg(ctx *sql.Context, name string, e sql.Expression) error {
	if !types.IsText(e.Type(ctx)) {
		return sql.ErrInvalidArgumentDetails.New(name, e.String())
	}
	return nil
}

// revisionArg evaluates a revision argument.
func revisionArg(ctx *sql.Context, e sql.Expression) (string, error) {
	v, err := e.Eval(ctx, nil)
	if err != nil {
		return "", err
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("received '%v' when expecting commit hash string", v)
	}
	return s, nil
}

// tableArg evaluates a table argument.
func tableArg(ctx *sql.Context, e sql.Expression) (string, error) {
	v, err := e.Eval(ctx, nil)
	if err != nil {
		return "", err
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("Invalid table name %s.", e.String())
	}
	return s, nil
}

// hasDots reports whether the first argument is a..b or a...b, as Dolt
// tells: its text holds "..".
func hasDots(e sql.Expression) bool { return strings.Contains(e.String(), "..") }

// diffFuncArgs reads dolt_diff's arguments: ('from', 'to', 'table') or
// ('a..b', 'table').
func diffFuncArgs(ctx *sql.Context, name string, args []sql.Expression) (systables.DiffArgs, error) {
	var a systables.DiffArgs
	if err := literalArgs(ctx, name, args); err != nil {
		return a, err
	}
	if len(args) < 2 {
		return a, sql.ErrInvalidArgumentNumber.New(name, "2 to 3", len(args))
	}
	var revs []sql.Expression
	if hasDots(args[0]) {
		if len(args) != 2 {
			return a, sql.ErrInvalidArgumentNumber.New(name+" with .. or ...", 2, len(args))
		}
		revs = args[:1]
	} else {
		if len(args) != 3 {
			return a, sql.ErrInvalidArgumentNumber.New(name, 3, len(args))
		}
		revs = args[:2]
	}
	table := args[len(args)-1]
	for _, e := range append([]sql.Expression{table}, revs...) {
		if err := textArg(ctx, name, e); err != nil {
			return a, err
		}
	}
	return readArgs(ctx, revs, table)
}

// rangeFuncArgs reads the arguments of dolt_diff_stat, dolt_diff_summary,
// dolt_patch and dolt_schema_diff: ('from', 'to'[, 'table']) or
// ('a..b'[, 'table']).
func rangeFuncArgs(ctx *sql.Context, name string, args []sql.Expression) (systables.DiffArgs, error) {
	var a systables.DiffArgs
	schemaDiff := name == systables.SchemaDiffName
	if len(args) < 1 || (schemaDiff && len(args) > 3) {
		return a, sql.ErrInvalidArgumentNumber.New(name, "1 to 3", len(args))
	}
	if err := literalArgs(ctx, name, args); err != nil {
		return a, err
	}
	var revs []sql.Expression
	switch {
	case hasDots(args[0]):
		if len(args) > 2 {
			return a, sql.ErrInvalidArgumentNumber.New(name, "1 or 2", len(args))
		}
		revs = args[:1]
	case schemaDiff && len(args) < 2:
		return a, sql.ErrInvalidArgumentDetails.New(name, "There are less than 2 arguments present, and the first does not contain '..'")
	case len(args) < 2 || len(args) > 3:
		return a, sql.ErrInvalidArgumentNumber.New(name, "2 or 3", len(args))
	default:
		revs = args[:2]
	}
	var table sql.Expression
	if len(args) > len(revs) {
		table = args[len(revs)]
	}
	for _, e := range append(revs, table) {
		if e == nil {
			continue
		}
		if err := textArg(ctx, name, e); err != nil {
			return a, err
		}
	}
	return readArgs(ctx, revs, table)
}

// readArgs evaluates the revision arguments (one: a..b) and the table
// argument (nil: none).
func readArgs(ctx *sql.Context, revs []sql.Expression, table sql.Expression) (systables.DiffArgs, error) {
	var a systables.DiffArgs
	var err error
	if table != nil {
		if a.Table, err = tableArg(ctx, table); err != nil {
			return a, err
		}
		a.HasTable = true
	}
	vals := make([]string, len(revs))
	for i, e := range revs {
		if vals[i], err = revisionArg(ctx, e); err != nil {
			return a, err
		}
	}
	if len(vals) == 1 {
		a.Dots = vals[0]
	} else {
		a.From, a.To = vals[0], vals[1]
	}
	return a, nil
}

// diffFunc is dolt_diff(): its columns depend on the table's, so the
// revisions are resolved now, and again when the query runs.
func diffFunc(ctx *sql.Context, d *Database, args []sql.Expression) (rowsFunc, sql.Schema, error) {
	a, err := diffFuncArgs(ctx, "dolt_diff", args)
	if err != nil {
		return nil, nil, err
	}
	open := func(ctx *sql.Context) (*systables.TableDiff, error) {
		view, err := d.systemView(ctx)
		if err != nil {
			return nil, err
		}
		return systables.NewTableDiff(ctx, view, "dolt_diff", a)
	}
	td, err := open(ctx)
	if err != nil {
		return nil, nil, err
	}
	sch := td.Schema()
	return func(ctx *sql.Context) (sql.RowIter, error) {
		td, err := open(ctx)
		if err != nil {
			return nil, err
		}
		if len(td.Schema()) != len(sch) {
			return nil, fmt.Errorf("dolt_diff: the table's columns changed since the query was planned; run it again")
		}
		rows, err := td.Rows(ctx)
		if err != nil {
			return nil, err
		}
		return sql.RowsToRowIter(rows...), nil
	}, sch, nil
}

// rangeFuncs are the diff functions of fixed columns, by name.
var rangeFuncs = map[string]struct {
	schema sql.Schema
	rows   func(ctx *sql.Context, v *systables.View, a systables.DiffArgs) ([]sql.Row, error)
}{
	systables.DiffStatName:    {systables.DiffStatSchema, systables.DiffStat},
	systables.DiffSummaryName: {systables.DiffSummarySchema, systables.DiffSummary},
	systables.SchemaDiffName:  {systables.SchemaDiffSchema, systables.SchemaDiff},
	systables.PatchName:       {systables.PatchSchema, systables.Patch},
}

// rangeFunc is dolt_diff_stat, dolt_diff_summary, dolt_schema_diff or
// dolt_patch: the arguments are read now, the revisions resolved when the
// query runs.
func rangeFunc(ctx *sql.Context, d *Database, name string, args []sql.Expression) (rowsFunc, sql.Schema, error) {
	f, ok := rangeFuncs[name]
	if !ok {
		return nil, nil, errors.New("verso: no table function " + name)
	}
	a, err := rangeFuncArgs(ctx, name, args)
	if err != nil {
		return nil, nil, err
	}
	return func(ctx *sql.Context) (sql.RowIter, error) {
		view, err := d.systemView(ctx)
		if err != nil {
			return nil, err
		}
		rows, err := f.rows(ctx, view, a)
		if err != nil {
			return nil, err
		}
		return sql.RowsToRowIter(rows...), nil
	}, f.schema, nil
}
