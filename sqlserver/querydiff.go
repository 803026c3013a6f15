package sqlserver

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso/systables"
)

// dolt_query_diff('query1', 'query2') runs two SELECTs in the session and
// compares their rows (systables.QueryDiff). Its columns are the queries',
// so they run when the query is planned, and again when it runs. They run
// in the statement's transaction, on an engine of their own over the same
// databases.

const queryDiffName = systables.QueryDiffName

func queryDiffFunc(ctx *sql.Context, d *Database, args []sql.Expression) (rowsFunc, sql.Schema, error) {
	if len(args) != 2 {
		return nil, nil, sql.ErrInvalidArgumentNumber.New(queryDiffName, "2", len(args))
	}
	if err := literalArgs(ctx, queryDiffName, args); err != nil {
		return nil, nil, err
	}
	run := func(ctx *sql.Context) (sql.Schema, []sql.Row, error) {
		var schs [2]sql.Schema
		var rows [2][]sql.Row
		for i, a := range args {
			q, err := a.Eval(ctx, nil)
			if err != nil {
				return nil, nil, err
			}
			if schs[i], rows[i], err = runSelect(ctx, d.p, q); err != nil {
				return nil, nil, err
			}
		}
		out, err := systables.QueryDiff(ctx, schs[0], schs[1], rows[0], rows[1])
		return systables.QueryDiffSchema(schs[0], schs[1]), out, err
	}
	sch, _, err := run(ctx)
	if err != nil {
		return nil, nil, err
	}
	return func(ctx *sql.Context) (sql.RowIter, error) {
		s, rows, err := run(ctx)
		if err != nil {
			return nil, err
		}
		if len(s) != len(sch) {
			return nil, fmt.Errorf("%s: the queries' columns changed since the query was planned; run it again", queryDiffName)
		}
		return sql.RowsToRowIter(rows...), nil
	}, sch, nil
}

// runSelect runs query q (a SELECT, as Dolt requires it to begin) in the
// session of ctx and returns its columns and rows.
func runSelect(ctx *sql.Context, p *Provider, q any) (_ sql.Schema, _ []sql.Row, err error) {
	s, ok := q.(string)
	if !ok {
		return nil, nil, fmt.Errorf("query must be a string, not %T", q)
	}
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(strings.ToLower(s), "select") {
		return nil, nil, errors.New("query must be a SELECT statement")
	}
	e := NewEngine(p)
	defer e.Close()
	// Planned and run without the engine's statement wrappers: the
	// statement that calls dolt_query_diff owns the transaction (its
	// commit) and the process list entry (its end).
	n, err := e.AnalyzeQuery(ctx, s)
	if err != nil {
		return nil, nil, err
	}
	iter, err := e.Analyzer.ExecBuilder.Build(ctx, n, nil)
	if err != nil {
		return nil, nil, err
	}
	rows, err := sql.RowIterToRows(ctx, iter)
	return n.Schema(ctx), rows, err
}
