package sqlserver

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso/commitgraph"
)

// Scalar functions over the commit graph of the current database:
//
//	active_branch()                 the session's branch (NULL in a
//	                                revision database at a tag or commit)
//	hashof(ref), dolt_hashof(ref)   the commit a ref names (a branch, tag,
//	                                hash, HEAD~2, main^2, ...)
//	dolt_merge_base(a, b)           the best common ancestor of two refs
//	has_ancestor(commit, ancestor)  whether ancestor is commit or one of
//	                                its ancestors
//
// A NULL argument gives NULL; a ref that names nothing is an error.

// graphFunctions are the scalar functions over the commit graph.
var graphFunctions = []sql.Function{
	graphFunction("active_branch", 0, types.LongText, evalActiveBranch, "returns the session's current branch"),
	graphFunction("hashof", 1, types.LongText, evalHashOf, "returns the commit hash a ref names"),
	graphFunction("dolt_hashof", 1, types.LongText, evalHashOf, "returns the commit hash a ref names"),
	graphFunction("dolt_merge_base", 2, types.LongText, evalMergeBase, "returns the hash of the best common ancestor of two refs"),
	graphFunction("has_ancestor", 2, types.Boolean, evalHasAncestor, "returns whether the second ref is the first or one of its ancestors"),
}

// graphFunction is the function name of arity arguments, of type typ,
// whose value eval computes.
func graphFunction(name string, arity int, typ sql.Type, eval func(ctx *sql.Context, db *Database, args []string) (any, error), desc string) sql.Function {
	return sql.FunctionN{Name: name, Fn: func(ctx *sql.Context, args ...sql.Expression) (sql.Expression, error) {
		if len(args) != arity {
			return nil, sql.ErrInvalidArgumentNumber.New(name, arity, len(args))
		}
		return &graphFunc{name: name, args: args, typ: typ, eval: eval, desc: desc}, nil
	}}
}

func evalActiveBranch(ctx *sql.Context, db *Database, _ []string) (any, error) {
	if db.rev != nil {
		return nil, nil
	}
	return db.branch, nil
}

func evalHashOf(ctx *sql.Context, db *Database, args []string) (any, error) {
	c, err := resolveRef(ctx, db, args[0])
	if err != nil {
		return nil, err
	}
	return c.Addr.String(), nil
}

func evalMergeBase(ctx *sql.Context, db *Database, args []string) (any, error) {
	a, err := resolveRef(ctx, db, args[0])
	if err != nil {
		return nil, err
	}
	b, err := resolveRef(ctx, db, args[1])
	if err != nil {
		return nil, err
	}
	m, err := db.st.graph.MergeBase(ctx, a.Addr, b.Addr)
	if err != nil {
		return nil, fmt.Errorf("dolt_merge_base('%s', '%s'): %w", args[0], args[1], err)
	}
	return m.Addr.String(), nil
}

func evalHasAncestor(ctx *sql.Context, db *Database, args []string) (any, error) {
	c, err := resolveRef(ctx, db, args[0])
	if err != nil {
		return nil, err
	}
	anc, err := resolveRef(ctx, db, args[1])
	if err != nil {
		return nil, err
	}
	return db.st.graph.IsAncestorCommit(ctx, anc, c)
}

// resolveRef resolves a ref of the current database, HEAD being the
// session's branch (or the revision's commit).
func resolveRef(ctx *sql.Context, db *Database, ref string) (*commitgraph.Commit, error) {
	if db.rev != nil && (ref == "HEAD" || strings.HasPrefix(ref, "HEAD~") || strings.HasPrefix(ref, "HEAD^")) {
		ref = db.rev.Addr.String() + strings.TrimPrefix(ref, "HEAD")
	}
	c, err := db.st.graph.Resolve(ctx, ref, db.branch)
	if err != nil {
		return nil, fmt.Errorf("%w; give a branch, a tag, a commit hash or a spec such as HEAD~2", err)
	}
	return c, nil
}

// graphFunc is the expression of one of the functions above.
type graphFunc struct {
	name string
	args []sql.Expression
	typ  sql.Type
	desc string
	eval func(ctx *sql.Context, db *Database, args []string) (any, error)
}

var _ sql.FunctionExpression = (*graphFunc)(nil)

func (f *graphFunc) FunctionName() string         { return f.name }
func (f *graphFunc) Description() string          { return f.desc }
func (f *graphFunc) Type(*sql.Context) sql.Type   { return f.typ }
func (f *graphFunc) IsNullable(*sql.Context) bool { return true }
func (f *graphFunc) Children() []sql.Expression   { return f.args }
func (f *graphFunc) IsNonDeterministic() bool     { return true }
func (f *graphFunc) Resolved() bool {
	for _, a := range f.args {
		if !a.Resolved() {
			return false
		}
	}
	return true
}

func (f *graphFunc) String() string {
	s := make([]string, len(f.args))
	for i, a := range f.args {
		s[i] = a.String()
	}
	return fmt.Sprintf("%s(%s)", f.name, strings.Join(s, ", "))
}

func (f *graphFunc) WithChildren(_ *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	if len(children) != len(f.args) {
		return nil, sql.ErrInvalidChildrenNumber.New(f, len(children), len(f.args))
	}
	nf := *f
	nf.args = children
	return &nf, nil
}

func (f *graphFunc) Eval(ctx *sql.Context, row sql.Row) (interface{}, error) {
	args := make([]string, len(f.args))
	for i, a := range f.args {
		v, err := a.Eval(ctx, row)
		if err != nil {
			return nil, err
		}
		if v == nil {
			return nil, nil
		}
		s, _, err := types.LongText.Convert(ctx, v)
		if err != nil {
			return nil, fmt.Errorf("%s: argument %d: %w", f.name, i+1, err)
		}
		args[i] = fmt.Sprint(s)
	}
	db, err := currentDatabase(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s(): %w", f.name, err)
	}
	return f.eval(ctx, db, args)
}
