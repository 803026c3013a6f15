package sqlserver

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dolthub/go-mysql-server/sql"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// The shapes of statements the fast path takes (see fastpath.go), and
// what it learns of each.

// fastTemplate is a recognized statement: what to read, and which bind
// variables hold the key values.
type fastTemplate struct {
	db    string                    // "" for the session's current database
	table string                    // as written
	cols  []string                  // selected columns, as written, in order (for sum: its column)
	sum   bool                      // the select list is SUM(cols[0])
	dist  bool                      // SELECT DISTINCT
	order string                    // the ORDER BY column, as written, or ""
	desc  bool                      // ORDER BY ... DESC
	key   string                    // the WHERE column, as written
	auth  sqlparser.AuthInformation // the table's, from the parse: what the engine checks
	rng   bool                      // WHERE key BETWEEN lo AND hi; else WHERE key = lo
	lo    string                    // placeholder of the key, or of the range's low end; "" for a literal
	hi    string                    // placeholder of the range's high end, or ""

	// The engine's result columns for this statement, learned from its
	// planned execution, by table schema (schemaFingerprint): which
	// columns carry their key flag and default depends on the engine's
	// plan (whether it keeps a projection), not only on the table.
	mu      sync.Mutex
	learned map[string]sql.Schema

	// shape is what prepare worked out for the table value it last ran
	// on: reused while executions find the same one (reads do not change
	// it; every write to the table does).
	shape atomic.Pointer[fastShape]
}

// fastShape is a template's plan for one table value of one database.
type fastShape struct {
	info    *tableInfo
	db      string
	pk      sql.Index
	keyType sql.Type
	proj    *projection // the columns read
	sch     sql.Schema  // the result columns

	// fields describes sch to clients (ResultFields) for the
	// character_set_results it was made for: direct executions
	// (fastdirect.go) make it once, and a shape made again for another
	// value of the table takes it over while sch is the same.
	fields atomic.Pointer[shapeFields]
}

// shapeFields is a shape's description of its result columns.
type shapeFields struct {
	results sql.CharacterSetID
	fields  []*querypb.Field
}

// takeFields gives sh the description of old's result columns when they
// are the same learned schema.
func (sh *fastShape) takeFields(old *fastShape) {
	if old != nil && len(old.sch) > 0 && len(old.sch) == len(sh.sch) && old.sch[0] == sh.sch[0] {
		sh.fields.Store(old.fields.Load())
	}
}

// maxLearned bounds a template's learned schemas (one per table schema it
// ran against; past it they are learned again).
const maxLearned = 16

func (t *fastTemplate) schema(key string) sql.Schema {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.learned[key]
}

func (t *fastTemplate) learn(key string, sch sql.Schema) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.learned == nil || len(t.learned) >= maxLearned {
		t.learned = map[string]sql.Schema{}
	}
	t.learned[key] = sch
}

// template returns the template of the prepared statement query, or nil
// when its shape is not one the fast path runs.
func (f *fastPath) template(query string) *fastTemplate {
	return f.cached(&f.tmpls, query, func() *fastTemplate { return classify(query) })
}

// cached returns (*m)[key], made by build and stored when absent (nil is
// stored too: not a fast-path shape). A full map starts over, so endless
// distinct statements cost their classification, not memory.
func (f *fastPath) cached(m *map[string]*fastTemplate, key string, build func() *fastTemplate) *fastTemplate {
	f.mu.RLock()
	t, ok := (*m)[key]
	f.mu.RUnlock()
	if ok {
		return t
	}
	t = build()
	f.mu.Lock()
	defer f.mu.Unlock()
	if old, ok := (*m)[key]; ok {
		return old
	}
	if len(*m) >= maxFastTemplates {
		*m = map[string]*fastTemplate{}
	}
	(*m)[key] = t
	return t
}

// classify parses the prepared statement query and returns its template,
// or nil.
func classify(query string) *fastTemplate {
	stmt, err := sqlparser.Parse(query)
	if err != nil {
		return nil
	}
	t, _ := shapeOf(stmt, true)
	return t
}

// shapeOf returns the template of stmt, or nil, and the expressions that
// hold its key values: `?` placeholders (whose names the template keeps)
// when placeholders is set, else unsigned integer literals.
func shapeOf(stmt sqlparser.Statement, placeholders bool) (*fastTemplate, sqlparser.Exprs) {
	arg := func(e sqlparser.Expr) (string, bool) {
		if placeholders {
			return bindArg(e)
		}
		v, ok := e.(*sqlparser.SQLVal)
		return "", ok && v.Type == sqlparser.IntVal
	}
	s, ok := stmt.(*sqlparser.Select)
	if !ok || s.Into != nil || s.With != nil || s.Limit != nil || s.Having != nil || s.Lock != nil && (s.Lock.Type != "" || len(s.Lock.Tables) > 0) ||
		len(s.GroupBy) > 0 || len(s.Window) > 0 || len(s.OrderBy) > 1 || len(s.Comments) > 0 ||
		s.QueryOpts.All || len(s.QueryOpts.DistinctOn) > 0 || s.QueryOpts.StraightJoinHint ||
		s.QueryOpts.SQLCalcFoundRows || s.QueryOpts.SQLCache || s.QueryOpts.SQLNoCache || s.Where == nil || s.Where.Type != sqlparser.WhereStr ||
		len(s.From) != 1 || len(s.SelectExprs) == 0 {
		return nil, nil
	}
	from, ok := s.From[0].(*sqlparser.AliasedTableExpr)
	if !ok || from.AsOf != nil || from.Hints != nil || !from.As.IsEmpty() || len(from.Partitions) > 0 || from.Lateral {
		return nil, nil
	}
	tn, ok := from.Expr.(sqlparser.TableName)
	if !ok || !tn.SchemaQualifier.IsEmpty() {
		return nil, nil
	}
	t := &fastTemplate{db: tn.DbQualifier.String(), table: tn.Name.String(), dist: s.QueryOpts.Distinct, auth: from.Auth}
	seen := map[string]bool{}
	for _, se := range s.SelectExprs {
		ae, ok := se.(*sqlparser.AliasedExpr)
		if !ok || !ae.As.IsEmpty() {
			return nil, nil
		}
		if fn, ok := ae.Expr.(*sqlparser.FuncExpr); ok && len(s.SelectExprs) == 1 {
			// SUM(column), the only select expression.
			if !fn.Name.EqualString("sum") || fn.Distinct || fn.Over != nil || !fn.Qualifier.IsEmpty() || len(fn.Exprs) != 1 {
				return nil, nil
			}
			arg, ok := fn.Exprs[0].(*sqlparser.AliasedExpr)
			if !ok || !arg.As.IsEmpty() {
				return nil, nil
			}
			col, ok := t.column(arg.Expr)
			if !ok {
				return nil, nil
			}
			t.cols, t.sum = []string{col}, true
			break
		}
		col, ok := t.column(ae.Expr)
		if !ok || seen[strings.ToLower(col)] {
			return nil, nil
		}
		seen[strings.ToLower(col)] = true
		t.cols = append(t.cols, col)
	}
	if len(s.OrderBy) == 1 {
		o := s.OrderBy[0]
		col, ok := t.column(o.Expr)
		if !ok || t.sum || o.Direction != sqlparser.AscScr && o.Direction != sqlparser.DescScr {
			return nil, nil
		}
		// DISTINCT orders by a selected column only (MySQL's rule).
		if t.dist && !seen[strings.ToLower(col)] {
			return nil, nil
		}
		t.order, t.desc = col, o.Direction == sqlparser.DescScr
	}
	if t.sum && t.dist {
		return nil, nil
	}
	var args sqlparser.Exprs
	switch w := s.Where.Expr.(type) {
	case *sqlparser.ComparisonExpr:
		if w.Operator != sqlparser.EqualStr || w.Escape != nil {
			return nil, nil
		}
		l, r := w.Left, w.Right
		if _, isArg := l.(*sqlparser.SQLVal); isArg {
			l, r = r, l
		}
		key, ok1 := t.column(l)
		name, ok2 := arg(r)
		if !ok1 || !ok2 {
			return nil, nil
		}
		t.key, t.lo = key, name
		args = sqlparser.Exprs{r}
	case *sqlparser.RangeCond:
		if w.Operator != sqlparser.BetweenStr {
			return nil, nil
		}
		key, ok1 := t.column(w.Left)
		lo, ok2 := arg(w.From)
		hi, ok3 := arg(w.To)
		if !ok1 || !ok2 || !ok3 {
			return nil, nil
		}
		t.key, t.lo, t.hi, t.rng = key, lo, hi, true
		args = sqlparser.Exprs{w.From, w.To}
	default:
		return nil, nil
	}
	return t, args
}

// oneRow reports whether the statement returns at most one row: a key
// lookup or a sum.
func (t *fastTemplate) oneRow() bool { return !t.rng || t.sum }

// column returns the name of e when it is a column of the template's
// table: unqualified, or qualified by the table (and database) as written.
func (t *fastTemplate) column(e sqlparser.Expr) (string, bool) {
	c, ok := e.(*sqlparser.ColName)
	if !ok || c.StoredProcVal != nil {
		return "", false
	}
	q := c.Qualifier
	if !q.IsEmpty() && (q.Name.String() != t.table || q.DbQualifier.String() != t.db && !q.DbQualifier.IsEmpty() || !q.SchemaQualifier.IsEmpty()) {
		return "", false
	}
	return c.Name.String(), true
}

// bindArg returns the name of a `?` placeholder ("v1" for ":v1").
func bindArg(e sqlparser.Expr) (string, bool) {
	v, ok := e.(*sqlparser.SQLVal)
	if !ok || v.Type != sqlparser.ValArg || len(v.Val) < 2 || v.Val[0] != ':' {
		return "", false
	}
	return string(v.Val[1:]), true
}

// fingerprint returns a text that differs between any two table schemas
// whose result columns could differ.
func (info *tableInfo) fingerprint() string {
	info.fpOnce.Do(func() {
		var b strings.Builder
		for _, c := range info.sch.Schema {
			fmt.Fprintf(&b, "%q %q %q %s %v %v %v %v %v %v %v %q %q %q;", c.Name, c.Source, c.DatabaseSource, c.Type,
				c.Nullable, c.PrimaryKey, c.AutoIncrement, c.Virtual, c.Hidden, c.HiddenSystem, c.Default != nil, c.Default, c.Generated, c.OnUpdate)
		}
		info.fp = b.String()
	})
	return info.fp
}

func (t *fastTemplate) String() string {
	what := fmt.Sprint(t.cols)
	if t.sum {
		what = "sum" + what
	}
	if t.dist {
		what = "distinct " + what
	}
	if t.order != "" {
		what += " order by " + t.order
		if t.desc {
			what += " desc"
		}
	}
	if !t.rng {
		return fmt.Sprintf("%s.%s %s where %s = :%s", t.db, t.table, what, t.key, t.lo)
	}
	return fmt.Sprintf("%s.%s %s where %s between :%s and :%s", t.db, t.table, what, t.key, t.lo, t.hi)
}
