package sqlserver

import (
	"errors"
	"fmt"
	"io"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/verso-db/verso/systables"
)

// dolt_tests and dolt_test_run(), as Dolt's: tests of the data, versioned
// with it, and the table function that runs them (the assertions are
// systables.RunTests').
//
//	test_name             text PRIMARY KEY
//	test_group            text
//	test_query            text NOT NULL
//	assertion_type        text NOT NULL   expected_rows, expected_columns
//	                                      or expected_single_value (a check)
//	assertion_comparator  text NOT NULL   ==, !=, <, >, <= or >= (a check)
//	assertion_value       text
//
// dolt_tests is a stored system table (storedsystables.go): made by its
// first write.

const testsTableName = "dolt_tests"

func testsSchema() sql.PrimaryKeySchema {
	return sql.NewPrimaryKeySchema(sql.Schema{
		{Name: "test_name", Type: types.Text, PrimaryKey: true, Source: testsTableName},
		{Name: "test_group", Type: types.Text, Nullable: true, Source: testsTableName},
		{Name: "test_query", Type: types.Text, Source: testsTableName},
		{Name: "assertion_type", Type: types.Text, Source: testsTableName},
		{Name: "assertion_comparator", Type: types.Text, Source: testsTableName},
		{Name: "assertion_value", Type: types.Text, Nullable: true, Source: testsTableName},
	})
}

// testsChecks are dolt_tests' checks, as Dolt names them.
var testsChecks = []sql.CheckDefinition{
	{Name: "assertion_type_check", CheckExpression: "(`assertion_type` IN ('expected_rows', 'expected_columns', 'expected_single_value'))", Enforced: true},
	{Name: "assertion_comparator_check", CheckExpression: "(`assertion_comparator` IN ('==', '!=', '<', '>', '<=', '>='))", Enforced: true},
}

// testRunFunc plans dolt_test_run(args): the tests are read and run when
// the query runs.
func testRunFunc(ctx *sql.Context, d *Database, args []sql.Expression) (rowsFunc, sql.Schema, error) {
	if err := literalArgs(ctx, systables.TestRunName, args); err != nil {
		return nil, nil, err
	}
	names := make([]string, len(args))
	for i, a := range args {
		v, err := a.Eval(ctx, nil)
		if err != nil {
			return nil, nil, err
		}
		if v == nil {
			names[i] = "NULL"
		} else {
			names[i] = fmt.Sprint(v)
		}
	}
	return func(ctx *sql.Context) (sql.RowIter, error) {
		all, err := d.tests(ctx)
		if err != nil {
			return nil, err
		}
		tests, err := systables.SelectTests(all, names)
		if err != nil {
			return nil, err
		}
		rows := systables.RunTests(ctx, tests, func(ctx *sql.Context, q string) (sql.Schema, []sql.Row, error) {
			return runTestQuery(ctx, d.p, q)
		})
		return sql.RowsToRowIter(rows...), nil
	}, systables.TestRunSchema, nil
}

// tests reads the rows of dolt_tests, by name.
func (d *Database) tests(ctx *sql.Context) ([]systables.Test, error) {
	t, ok, err := d.GetTableInsensitive(ctx, testsTableName)
	if err != nil || !ok {
		return nil, err
	}
	rows, err := allRows(ctx, t)
	if err != nil {
		return nil, err
	}
	str := func(v any) *string {
		if v == nil {
			return nil
		}
		s := fmt.Sprint(v)
		return &s
	}
	out := make([]systables.Test, 0, len(rows))
	for _, r := range rows {
		if len(r) < 6 {
			return nil, fmt.Errorf("%s has %d columns, not 6", testsTableName, len(r))
		}
		out = append(out, systables.Test{Name: fmt.Sprint(r[0]), Group: str(r[1]), Query: fmt.Sprint(r[2]),
			Assertion: fmt.Sprint(r[3]), Comparator: fmt.Sprint(r[4]), Value: str(r[5])})
	}
	return out, nil
}

// allRows reads every row of t.
func allRows(ctx *sql.Context, t sql.Table) ([]sql.Row, error) {
	parts, err := t.Partitions(ctx)
	if err != nil {
		return nil, err
	}
	defer parts.Close(ctx)
	var out []sql.Row
	for {
		p, err := parts.Next(ctx)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		it, err := t.PartitionRows(ctx, p)
		if err != nil {
			return nil, err
		}
		rows, err := sql.RowIterToRows(ctx, it)
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
	}
}

// runTestQuery runs a test's query in the session of ctx, read-only, as
// Dolt does: one statement, which may not write; its errors say "query
// error".
func runTestQuery(ctx *sql.Context, p *Provider, q string) (sql.Schema, []sql.Row, error) {
	if pieces, err := ast.SplitStatementToPieces(q); err == nil && len(pieces) > 1 {
		return nil, nil, errors.New("Can only run exactly one query")
	}
	e := NewEngine(p)
	defer e.Close()
	n, err := e.AnalyzeQuery(ctx, q)
	if err != nil {
		return nil, nil, fmt.Errorf("query error: %w", err)
	}
	if !plan.IsReadOnly(n) {
		return nil, nil, errors.New("Cannot execute write queries")
	}
	iter, err := e.Analyzer.ExecBuilder.Build(ctx, n, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("query error: %w", err)
	}
	rows, err := sql.RowIterToRows(ctx, iter)
	if err != nil {
		return nil, nil, fmt.Errorf("query error: %w", err)
	}
	return n.Schema(ctx), rows, nil
}
