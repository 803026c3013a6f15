package systables

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// QueryDiffName is the table function that compares two queries' rows.
const QueryDiffName = "dolt_query_diff"

// QueryDiffSchema returns dolt_query_diff's columns for queries of
// columns from and to: from_<c>... of the first, to_<c>... of the second,
// then diff_type.
func QueryDiffSchema(from, to sql.Schema) sql.Schema {
	var out sql.Schema
	for _, p := range []struct {
		prefix string
		cols   sql.Schema
	}{{"from_", from}, {"to_", to}} {
		for _, c := range p.cols {
			nc := *c
			nc.Name, nc.Source = p.prefix+c.Name, "query_diff"
			out = append(out, &nc)
		}
	}
	return append(out, &sql.Column{Name: "diff_type", Type: types.Text, Nullable: true, Source: "query_diff"})
}

// QueryDiff returns dolt_query_diff's rows for the rows of two queries
// (of columns from and to), as Dolt compares them: when the two queries
// have the same columns, rows are paired in order by the primary-key
// columns among them (each query's rows are taken to come in that order;
// with no such column, by position), and a pair that differs in any
// column is modified, a row of the first alone deleted, of the second
// alone added; when the columns differ, every row of the first is
// deleted and every row of the second added.
func QueryDiff(ctx *sql.Context, from, to sql.Schema, fromRows, toRows []sql.Row) ([]sql.Row, error) {
	nilFrom, nilTo := make(sql.Row, len(from)), make(sql.Row, len(to))
	deleted := func(r sql.Row) sql.Row { return append(append(append(sql.Row{}, r...), nilTo...), "deleted") }
	added := func(r sql.Row) sql.Row { return append(append(append(sql.Row{}, nilFrom...), r...), "added") }
	var out []sql.Row
	if !from.Equals(to) {
		for _, r := range fromRows {
			out = append(out, deleted(r))
		}
		for _, r := range toRows {
			out = append(out, added(r))
		}
		return out, nil
	}
	var pk []int
	for i, c := range from {
		if c.PrimaryKey {
			pk = append(pk, i)
		}
	}
	i, j := 0, 0
	for i < len(fromRows) && j < len(toRows) {
		a, b := fromRows[i], toRows[j]
		cmp := 0
		for _, k := range pk {
			c, err := from[k].Type.Compare(ctx, a[k], b[k])
			if err != nil {
				return nil, err
			}
			if c != 0 {
				cmp = c
				break
			}
		}
		switch {
		case cmp < 0:
			out = append(out, deleted(a))
			i++
		case cmp > 0:
			out = append(out, added(b))
			j++
		default:
			differ, err := rowsDiffer(ctx, from, a, b)
			if err != nil {
				return nil, err
			}
			if differ {
				out = append(out, append(append(append(sql.Row{}, a...), b...), "modified"))
			}
			i++
			j++
		}
	}
	for ; i < len(fromRows); i++ {
		out = append(out, deleted(fromRows[i]))
	}
	for ; j < len(toRows); j++ {
		out = append(out, added(toRows[j]))
	}
	return out, nil
}

// rowsDiffer reports whether two rows of columns sch differ in a column.
func rowsDiffer(ctx *sql.Context, sch sql.Schema, a, b sql.Row) (bool, error) {
	for k, c := range sch {
		if (a[k] == nil) != (b[k] == nil) {
			return true, nil
		}
		if a[k] == nil {
			continue
		}
		cmp, err := c.Type.Compare(ctx, a[k], b[k])
		if err != nil {
			return false, err
		}
		if cmp != 0 {
			return true, nil
		}
	}
	return false, nil
}
