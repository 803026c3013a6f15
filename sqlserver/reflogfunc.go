package sqlserver

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso"
)

// dolt_reflog(['--all'] [, ref]): where the refs pointed, newest first,
// as Dolt's table function answers (verso.DB.Reflog reads it from the
// store's history of roots). Without a ref, every branch and tag; a ref
// is a branch or tag name (any case) or refs/heads/..., refs/tags/...; a
// name no ref had, or an argument that is no ref ('--bogus', 'HEAD'),
// lists nothing. A deleted ref keeps the moves it made and shows no
// deletion. ref_timestamp is the time of the commit (or tag) the ref
// pointed to: the store records no time of a move.

var reflogSchema = sql.Schema{
	{Name: "ref", Type: types.LongText, Nullable: false, Source: "dolt_reflog"},
	{Name: "ref_timestamp", Type: types.Timestamp, Nullable: false, Source: "dolt_reflog"},
	{Name: "commit_hash", Type: types.LongText, Nullable: false, Source: "dolt_reflog"},
	{Name: "commit_message", Type: types.LongText, Nullable: false, Source: "dolt_reflog"},
}

// reflogFunc is an instance of dolt_reflog(...).
type reflogFunc struct {
	db   *Database
	args []sql.Expression
	all  bool
	ref  string
}

var (
	_ sql.TableFunction = (*reflogFunc)(nil)
	_ sql.ExecSourceRel = (*reflogFunc)(nil)
)

// NewInstance implements sql.TableFunction.
func (f *reflogFunc) NewInstance(ctx *sql.Context, db sql.Database, args []sql.Expression) (sql.Node, error) {
	d, ok := unwrapDatabase(db)
	if !ok || d.temp {
		return nil, errors.New("dolt_reflog: no verso database selected (USE one first)")
	}
	out := &reflogFunc{db: d, args: args}
	var pos []string
	for _, a := range args {
		v, err := a.Eval(ctx, nil)
		if err != nil {
			return nil, err
		}
		s, ok := v.(string)
		if !ok {
			// Dolt's words: the value, or <nil>, and its Go type.
			shown := fmt.Sprint(v)
			return nil, fmt.Errorf("argument (%s) is not a string value, but a %T", shown, v)
		}
		if s == "--all" {
			out.all = true
			continue
		}
		pos = append(pos, s)
	}
	if len(pos) > 1 {
		return nil, fmt.Errorf("error: dolt_reflog has too many positional arguments. Expected at most 1, found %d: ['%s']", len(pos), strings.Join(pos, "' '"))
	}
	if len(pos) == 1 {
		out.ref = pos[0]
	}
	return out, nil
}

func (f *reflogFunc) Name() string { return "dolt_reflog" }

func (f *reflogFunc) String() string {
	parts := make([]string, len(f.args))
	for i, a := range f.args {
		parts[i] = a.String()
	}
	return fmt.Sprintf("dolt_reflog(%s)", strings.Join(parts, ", "))
}

func (f *reflogFunc) Resolved() bool                              { return true }
func (f *reflogFunc) IsReadOnly() bool                            { return true }
func (f *reflogFunc) Schema(*sql.Context) sql.Schema              { return reflogSchema }
func (f *reflogFunc) Children() []sql.Node                        { return nil }
func (f *reflogFunc) Expressions() []sql.Expression               { return f.args }
func (f *reflogFunc) Collation() sql.CollationID                  { return sql.Collation_Default }
func (f *reflogFunc) Database() sql.Database                      { return f.db }
func (f *reflogFunc) WithDatabase(sql.Database) (sql.Node, error) { return f, nil }

func (f *reflogFunc) WithChildren(_ *sql.Context, children ...sql.Node) (sql.Node, error) {
	if len(children) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(f, len(children), 0)
	}
	return f, nil
}

func (f *reflogFunc) WithExpressions(_ *sql.Context, exprs ...sql.Expression) (sql.Node, error) {
	if len(exprs) != len(f.args) {
		return nil, sql.ErrInvalidChildrenNumber.New(f, len(exprs), len(f.args))
	}
	n := *f
	n.args = exprs
	return &n, nil
}

// RowIter implements sql.ExecSourceRel.
func (f *reflogFunc) RowIter(ctx *sql.Context, _ sql.Row) (sql.RowIter, error) {
	e := f.db.st.db
	entries, err := e.Reflog(ctx, "", true)
	if errors.Is(err, verso.ErrNoReflog) {
		return sql.RowsToRowIter(), nil
	}
	if err != nil {
		return nil, err
	}
	want := func(string) bool { return true }
	if f.ref != "" {
		r := strings.ToLower(f.ref)
		want = func(name string) bool {
			l := strings.ToLower(name)
			return l == r || l == "refs/heads/"+r || l == "refs/tags/"+r
		}
	}
	g := f.db.st.graph
	var rows []sql.Row
	for _, en := range entries {
		if en.Deleted || !want(en.Ref) {
			continue
		}
		c, err := g.ReadCommit(ctx, en.Commit)
		if err != nil {
			continue // collected since
		}
		hash, when := en.Commit.String(), c.Meta.Time
		if !en.Tag.IsEmpty() {
			hash = en.Tag.String() // a tag ref names the tag, as Dolt's
			if name, ok := strings.CutPrefix(en.Ref, "refs/tags/"); ok {
				if t, err := g.Tag(ctx, name); err == nil && t.Commit == en.Commit {
					when = t.Time
				}
			}
		}
		rows = append(rows, sql.Row{en.Ref, when, hash, c.Meta.Message})
	}
	return sql.RowsToRowIter(rows...), nil
}
