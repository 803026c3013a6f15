package sqlserver

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// dolt_json_diff(from, to): the paths at which two JSON documents differ,
// as Dolt's table function lists them: a row per difference, depth first,
// an object's keys in order and an array's elements by position. Objects
// (and arrays) on both sides are compared member by member; anything else
// that differs (a scalar, or an object against an array) is one modified
// row. Numbers compare by value (1 equals 1.0). A SQL NULL is JSON's null.
// A path is MySQL's: $, then .key (a key that is no identifier in double
// quotes, as JSON_SEARCH writes it) or [n]. The arguments may be any
// expressions, columns of an outer query excepted; they are read when the
// query runs.

const jsonDiffName = "dolt_json_diff"

var jsonDiffSchema = sql.Schema{
	{Name: "diff_type", Type: types.Text, Nullable: false, Source: jsonDiffName},
	{Name: "path", Type: types.Text, Nullable: false, Source: jsonDiffName},
	{Name: "from_value", Type: types.JSON, Nullable: true, Source: jsonDiffName},
	{Name: "to_value", Type: types.JSON, Nullable: true, Source: jsonDiffName},
}

// jsonDiffFunc is an instance of dolt_json_diff(from, to).
type jsonDiffFunc struct {
	db   sql.Database
	args []sql.Expression
}

var (
	_ sql.TableFunction = (*jsonDiffFunc)(nil)
	_ sql.ExecSourceRel = (*jsonDiffFunc)(nil)
)

// NewInstance implements sql.TableFunction.
func (f *jsonDiffFunc) NewInstance(_ *sql.Context, db sql.Database, args []sql.Expression) (sql.Node, error) {
	if len(args) != 2 {
		return nil, sql.ErrInvalidArgumentNumber.New(jsonDiffName, 2, len(args))
	}
	return &jsonDiffFunc{db: db, args: args}, nil
}

func (f *jsonDiffFunc) Name() string { return jsonDiffName }

func (f *jsonDiffFunc) String() string {
	parts := make([]string, len(f.args))
	for i, a := range f.args {
		parts[i] = a.String()
	}
	return fmt.Sprintf("%s(%s)", jsonDiffName, strings.Join(parts, ", "))
}

func (f *jsonDiffFunc) Resolved() bool {
	for _, a := range f.args {
		if !a.Resolved() {
			return false
		}
	}
	return true
}

func (f *jsonDiffFunc) IsReadOnly() bool               { return true }
func (f *jsonDiffFunc) Schema(*sql.Context) sql.Schema { return jsonDiffSchema }
func (f *jsonDiffFunc) Children() []sql.Node           { return nil }
func (f *jsonDiffFunc) Expressions() []sql.Expression  { return f.args }
func (f *jsonDiffFunc) Collation() sql.CollationID     { return sql.Collation_Default }
func (f *jsonDiffFunc) Database() sql.Database         { return f.db }
func (f *jsonDiffFunc) WithDatabase(db sql.Database) (sql.Node, error) {
	n := *f
	n.db = db
	return &n, nil
}

func (f *jsonDiffFunc) WithChildren(_ *sql.Context, children ...sql.Node) (sql.Node, error) {
	if len(children) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(f, len(children), 0)
	}
	return f, nil
}

func (f *jsonDiffFunc) WithExpressions(_ *sql.Context, exprs ...sql.Expression) (sql.Node, error) {
	if len(exprs) != len(f.args) {
		return nil, sql.ErrInvalidChildrenNumber.New(f, len(exprs), len(f.args))
	}
	n := *f
	n.args = exprs
	return &n, nil
}

// RowIter implements sql.ExecSourceRel.
func (f *jsonDiffFunc) RowIter(ctx *sql.Context, row sql.Row) (sql.RowIter, error) {
	var docs [2]any
	for i, a := range f.args {
		v, err := a.Eval(ctx, row)
		if err != nil {
			return nil, err
		}
		if v == nil {
			continue // JSON's null
		}
		j, _, err := types.JSON.Convert(ctx, v)
		if err != nil {
			return nil, err
		}
		w, ok := j.(sql.JSONWrapper)
		if !ok {
			return nil, fmt.Errorf("%s: argument %d is not JSON", jsonDiffName, i+1)
		}
		if docs[i], err = w.ToInterface(ctx); err != nil {
			return nil, err
		}
	}
	var rows []sql.Row
	if err := diffJSON(ctx, "$", docs[0], docs[1], &rows); err != nil {
		return nil, err
	}
	return sql.RowsToRowIter(rows...), nil
}

// diffJSON appends to rows the differences of from and to at path.
func diffJSON(ctx *sql.Context, path string, from, to any, rows *[]sql.Row) error {
	doc := func(v any) any { return types.JSONDocument{Val: v} }
	switch f := from.(type) {
	case types.JsonObject:
		t, ok := to.(types.JsonObject)
		if !ok {
			break
		}
		keys := make([]string, 0, len(f)+len(t))
		for k := range f {
			keys = append(keys, k)
		}
		for k := range t {
			if _, both := f[k]; !both {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			p := path + "." + jsonPathKey(k)
			fv, inFrom := f[k]
			tv, inTo := t[k]
			switch {
			case !inTo:
				*rows = append(*rows, sql.Row{"removed", p, doc(fv), nil})
			case !inFrom:
				*rows = append(*rows, sql.Row{"added", p, nil, doc(tv)})
			default:
				if err := diffJSON(ctx, p, fv, tv, rows); err != nil {
					return err
				}
			}
		}
		return nil
	case types.JsonArray:
		t, ok := to.(types.JsonArray)
		if !ok {
			break
		}
		for i := 0; i < max(len(f), len(t)); i++ {
			p := path + "[" + strconv.Itoa(i) + "]"
			switch {
			case i >= len(t):
				*rows = append(*rows, sql.Row{"removed", p, doc(f[i]), nil})
			case i >= len(f):
				*rows = append(*rows, sql.Row{"added", p, nil, doc(t[i])})
			default:
				if err := diffJSON(ctx, p, f[i], t[i], rows); err != nil {
					return err
				}
			}
		}
		return nil
	}
	same, err := sameJSON(ctx, from, to)
	if err != nil || same {
		return err
	}
	*rows = append(*rows, sql.Row{"modified", path, doc(from), doc(to)})
	return nil
}

// sameJSON reports whether two JSON values are equal: of one type and
// value (numbers by value), null equal to null only.
func sameJSON(ctx *sql.Context, a, b any) (bool, error) {
	if a == nil || b == nil {
		return a == nil && b == nil, nil
	}
	c, err := types.CompareJSON(ctx, a, b)
	return c == 0, err
}

// jsonIdentifier is a key a JSON path may name unquoted.
var jsonIdentifier = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// jsonPathKey returns key as a JSON path names it: unquoted when it is an
// identifier, else in double quotes with " and \ escaped.
func jsonPathKey(key string) string {
	if jsonIdentifier.MatchString(key) {
		return key
	}
	return strconv.Quote(key)
}
