package sqlserver

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
)

// Scalar functions over the commit graph of the current database:
//
//	active_branch()                 the session's branch (NULL in a
//	                                revision database at a tag or commit)
//	hashof(ref), dolt_hashof(ref)   the commit a ref names (HEAD, a branch
//	                                or tag in any case, a hash, then ~ and
//	                                ^ steps: HEAD~2, main^2, ...)
//	dolt_merge_base(a, b)           the best common ancestor of two refs
//	has_ancestor(commit, ancestor)  whether ancestor is commit or one of
//	                                its ancestors
//	dolt_hashof_table(t)            the address of table t's value in the
//	                                working root the session sees
//	dolt_hashof_db([ref])           the address of the working root the
//	                                session sees, or of WORKING, STAGED or
//	                                a ref's root
//	dolt_version()                  the Dolt version whose SQL surface
//	                                verso answers as (DoltVersion)
//
// A NULL argument gives NULL; a ref that names nothing is an error, in
// Dolt's words for hashof() and dolt_merge_base().

// DoltVersion is the version of Dolt whose procedures, functions and
// system tables verso follows: dolt_version() answers it, so that an
// application's feature checks see the surface they get.
const DoltVersion = "2.3.1"

// graphFunctions are the scalar functions over the commit graph.
var graphFunctions = []sql.Function{
	graphFunction("active_branch", 0, types.LongText, evalActiveBranch, "returns the session's current branch").function(),
	graphFunction("hashof", 1, types.LongText, evalHashOf, "returns the commit hash a ref names").function(),
	graphFunction("dolt_hashof", 1, types.LongText, evalHashOf, "returns the commit hash a ref names").function(),
	graphFunction("dolt_merge_base", 2, types.LongText, evalMergeBase, "returns the hash of the best common ancestor of two refs").function(),
	graphFunction("has_ancestor", 2, types.Boolean, evalHasAncestor, "returns whether the second ref is the first or one of its ancestors").function(),
	graphFunction("dolt_hashof_table", 1, types.LongText, evalHashOfTable, "returns the hash of a table's value in the working root").function(),
	graphFunctionN("dolt_hashof_db", 0, 1, types.LongText, evalHashOfDB, "returns the hash of the working root, or of a ref's root").nullAs("NULL").function(),
	sql.Function0{Name: "dolt_version", Fn: func(*sql.Context) sql.Expression { return doltVersion{} }},
}

// graphFunction is the function name of arity arguments, of type typ,
// whose value eval computes.
func graphFunction(name string, arity int, typ sql.Type, eval func(ctx *sql.Context, db *Database, args []string) (any, error), desc string) graphFunctionDef {
	return graphFunctionN(name, arity, arity, typ, eval, desc)
}

// graphFunctionN is graphFunction for min to max arguments.
func graphFunctionN(name string, min, max int, typ sql.Type, eval func(ctx *sql.Context, db *Database, args []string) (any, error), desc string) graphFunctionDef {
	return graphFunctionDef{f: graphFunc{name: name, typ: typ, eval: eval, desc: desc}, min: min, max: max}
}

// graphFunctionDef is the definition of a graphFunc, which the engine's
// catalog holds.
type graphFunctionDef struct {
	f        graphFunc
	min, max int
}

// nullAs makes a NULL argument reach the function as the text s (as
// Dolt's dolt_hashof_db reads it), instead of making the result NULL.
func (d graphFunctionDef) nullAs(s string) graphFunctionDef {
	d.f.nullText = &s
	return d
}

// function returns the function the engine's catalog holds.
func (d graphFunctionDef) function() sql.Function {
	return sql.FunctionN{Name: d.f.name, Fn: d.newInstance}
}

func (d graphFunctionDef) newInstance(ctx *sql.Context, args ...sql.Expression) (sql.Expression, error) {
	if len(args) < d.min || len(args) > d.max {
		var want any = d.max
		switch {
		case d.max == d.min+1:
			want = fmt.Sprintf("%d or %d", d.min, d.max)
		case d.max > d.min:
			want = fmt.Sprintf("%d to %d", d.min, d.max)
		}
		return nil, sql.ErrInvalidArgumentNumber.New(d.f.name, want, len(args))
	}
	f := d.f
	f.args = args
	return &f, nil
}

// sessionRoot returns the working root the session's transaction sees in
// db (its pending writes included), or a revision database's root.
func sessionRoot(ctx *sql.Context, db *Database) (commitgraph.RootValue, error) {
	if db.rev != nil {
		return db.st.graph.OpenRoot(ctx, db.rev.Root)
	}
	d, err := txDatabase(ctx, db.st, db.branch)
	if err != nil {
		return commitgraph.RootValue{}, err
	}
	if err := d.flushAll(ctx); err != nil {
		return commitgraph.RootValue{}, err
	}
	return d.Root(), nil
}

func evalHashOfTable(ctx *sql.Context, db *Database, args []string) (any, error) {
	root, err := sessionRoot(ctx, db)
	if err != nil {
		return nil, err
	}
	// The name is matched exactly, as Dolt's is.
	addr, ok, err := root.Get(ctx, commitgraph.TablePrefix+args[0])
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, sql.ErrTableNotFound.New(args[0])
	}
	return addr.String(), nil
}

func evalHashOfDB(ctx *sql.Context, db *Database, args []string) (any, error) {
	ref := "WORKING"
	if len(args) > 0 {
		ref = args[0]
	}
	switch {
	case strings.EqualFold(ref, "WORKING"):
		root, err := sessionRoot(ctx, db)
		if err != nil {
			return nil, err
		}
		return root.Address().String(), nil
	case strings.EqualFold(ref, "STAGED") && db.rev == nil:
		ws, err := db.st.graph.WorkingSet(ctx, db.branch)
		if err != nil {
			return nil, err
		}
		return ws.Staged.String(), nil
	}
	// A ref, not a revision: HEAD, a branch or a tag (no hash, no ~n).
	bad := fmt.Errorf("error getting ref '%s' from database '%s': invalid ref spec", ref, db.st.name)
	if strings.EqualFold(ref, "HEAD") {
		ref = "HEAD"
	} else if !isRefName(ctx, db, ref) {
		return nil, bad
	}
	c, err := resolveRef(ctx, db, ref)
	if err != nil {
		return nil, bad
	}
	return c.Root.String(), nil
}

// isRefName reports whether name is a branch or a tag of db.
func isRefName(ctx *sql.Context, db *Database, name string) bool {
	if _, err := db.st.graph.Head(ctx, name); err == nil {
		return true
	}
	ts, err := db.st.graph.Tags(ctx)
	if err != nil {
		return false
	}
	for _, t := range ts {
		if t.Name == name {
			return true
		}
	}
	return false
}

// doltVersion is dolt_version().
type doltVersion struct{}

var _ sql.FunctionExpression = doltVersion{}

func (doltVersion) FunctionName() string { return "dolt_version" }
func (doltVersion) Description() string {
	return "returns the Dolt version whose SQL surface verso answers as"
}
func (doltVersion) Type(*sql.Context) sql.Type   { return types.Text }
func (doltVersion) IsNullable(*sql.Context) bool { return false }
func (doltVersion) Children() []sql.Expression   { return nil }
func (doltVersion) Resolved() bool               { return true }
func (doltVersion) String() string               { return "dolt_version()" }
func (v doltVersion) WithChildren(_ *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(v, len(children), 0)
	}
	return v, nil
}
func (doltVersion) Eval(*sql.Context, sql.Row) (interface{}, error) { return DoltVersion, nil }

func evalActiveBranch(ctx *sql.Context, db *Database, _ []string) (any, error) {
	if db.rev != nil {
		return nil, nil
	}
	return db.branch, nil
}

// Dolt's errors of hashof().
var (
	errInvalidRefSpec      = errors.New("invalid ref spec")
	errInvalidAncestorSpec = errors.New("invalid ancestor spec")
)

// evalHashOf resolves a ref as Dolt's hashof() does, which is not quite a
// revision spec: HEAD (any case), a branch or a tag named in any case, or
// a commit's hash, then ~ and ^ steps. Full ref names (refs/heads/main)
// are no refs to it.
func evalHashOf(ctx *sql.Context, db *Database, args []string) (any, error) {
	spec := args[0]
	base, steps := spec, ""
	if i := strings.IndexAny(spec, "~^"); i >= 0 {
		base, steps = spec[:i], spec[i:]
	}
	c, err := hashOfBase(ctx, db, base)
	if err != nil {
		return nil, err
	}
	if steps != "" {
		if c, err = db.st.graph.Resolve(ctx, c.Addr.String()+steps, db.branch); err != nil {
			if errors.Is(err, commitgraph.ErrNoSuchAncestor) || errors.Is(err, commitgraph.ErrBadRevision) {
				return nil, errInvalidAncestorSpec
			}
			return nil, err
		}
	}
	return c.Addr.String(), nil
}

// hashOfBase returns the commit that the part of a hashof() spec before
// its steps names.
func hashOfBase(ctx *sql.Context, db *Database, base string) (*commitgraph.Commit, error) {
	if strings.EqualFold(base, "HEAD") {
		return resolveRef(ctx, db, "HEAD")
	}
	name, ok, err := refNamedInsensitive(ctx, db, base)
	if err != nil {
		return nil, err
	}
	if ok {
		return db.st.graph.Resolve(ctx, name, db.branch)
	}
	addr, err := chunks.ParseAddress(base)
	if err != nil {
		return nil, errInvalidRefSpec
	}
	c, err := db.st.graph.ReadCommit(ctx, addr)
	if errors.Is(err, commitgraph.ErrNotCommit) {
		return nil, errInvalidRefSpec
	}
	return c, err
}

// refNamedInsensitive returns the branch or tag named name, in its own
// case: the branch or tag of that exact name, or else the first branch,
// then the first tag, whose name equals it in any case.
func refNamedInsensitive(ctx *sql.Context, db *Database, name string) (string, bool, error) {
	bs, err := db.st.graph.Branches(ctx)
	if err != nil {
		return "", false, err
	}
	ts, err := db.st.graph.Tags(ctx)
	if err != nil {
		return "", false, err
	}
	names := make([]string, 0, len(bs)+len(ts))
	for _, b := range bs {
		names = append(names, b.Name)
	}
	for _, t := range ts {
		names = append(names, t.Name)
	}
	// Remote-tracking branches, as <remote>/<branch> (Dolt's hashof
	// takes no remotes/ or refs/remotes/ form).
	rbs, err := db.st.graph.RemoteBranches(ctx)
	if err != nil {
		return "", false, err
	}
	for _, rb := range rbs {
		names = append(names, rb.Name)
	}
	if slices.Contains(names, name) {
		return name, true, nil
	}
	for _, n := range names {
		if strings.EqualFold(n, name) {
			return n, true, nil
		}
	}
	return "", false, nil
}

// evalMergeBase is dolt_merge_base(a, b); revisions that name nothing fail
// in Dolt's words.
func evalMergeBase(ctx *sql.Context, db *Database, args []string) (any, error) {
	a, err := resolveDolt(ctx, db, args[0])
	if err != nil {
		return nil, err
	}
	b, err := resolveDolt(ctx, db, args[1])
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
	c, err := resolveHead(ctx, db, ref)
	if err != nil {
		return nil, fmt.Errorf("%w; give a branch, a tag, a commit hash or a spec such as HEAD~2", err)
	}
	return c, nil
}

// resolveDolt is resolveRef with Dolt's errors (revisionError).
func resolveDolt(ctx *sql.Context, db *Database, ref string) (*commitgraph.Commit, error) {
	c, err := resolveHead(ctx, db, ref)
	if err != nil {
		return nil, revisionError(ref, err)
	}
	return c, nil
}

// resolveHead resolves ref, HEAD being the session's branch (or the
// revision's commit).
func resolveHead(ctx *sql.Context, db *Database, ref string) (*commitgraph.Commit, error) {
	if db.rev != nil && (ref == "HEAD" || strings.HasPrefix(ref, "HEAD~") || strings.HasPrefix(ref, "HEAD^")) {
		ref = db.rev.Addr.String() + strings.TrimPrefix(ref, "HEAD")
	}
	return db.st.graph.Resolve(ctx, ref, db.branch)
}

// graphFunc is the expression of one of the functions above.
type graphFunc struct {
	name string
	args []sql.Expression
	typ  sql.Type
	desc string
	eval func(ctx *sql.Context, db *Database, args []string) (any, error)
	// nullText, if set, is the text a NULL argument is read as; else a
	// NULL argument makes the result NULL.
	nullText *string
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
		if v == nil && f.nullText != nil {
			args[i] = *f.nullText
			continue
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
