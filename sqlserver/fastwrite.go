package sqlserver

import (
	"context"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/verso-db/verso/tables"
)

// Single-row writes by primary key without the engine's handler.
//
// An autocommitted one-row write spent about a third of the server's CPU
// in the engine before its row reached the table's editor: the parse (of
// the statement's text, its string literals included), the bind, the
// analysis and the iterators that run the plan. The writes of sysbench,
// and of most applications, are three shapes:
//
//	INSERT INTO [db.]t [(col, ...)] VALUES (v, ...)
//	UPDATE [db.]t SET col = v | col = col2 + v | col = col2 - v [, ...] WHERE pk = v
//	DELETE FROM [db.]t WHERE pk = v
//
// with v a placeholder of a prepared statement (ExecPreparedWrite), or in
// a text query (ExecWrite) an integer or a string literal (NULL too, as
// written). ExecWrite splits a text query into its shape, the query with
// each literal replaced by '?', and the literals (textShape: a tokenizer
// that declines comments, escapes, doubled quotes, double quotes, numbers
// other than plain integers and any character outside the shapes); the
// shape is parsed once by the engine's parser, as a prepared statement's
// text is, and the template it makes is kept by shape (writeTemplateOf
// takes a statement only when the parsed tree, printed, is exactly the
// tree of the shape rebuilt from what the template holds, so no clause it
// does not know of passes).
//
// An execution does what the engine's handler and plan would do, in their
// order, through the same pieces: the context and process list entry
// (beginDirect), the account's privileges as the engine's binder checks
// them (the statement's parsed authorization information), the session's
// transaction, the table through the database's catalog, the table's
// editor (openEditor: an UPDATE's and a DELETE's read of the row locks it,
// as the engine's does), StatementBegin, the row's values converted by the
// columns' types (Convert, or ConvertRound for an INSERT into a number
// column, as the engine's insert does), the auto-increment column as the
// engine's AutoIncrement expression fills it, an UPDATE's unchanged row
// not written, StatementComplete (or DiscardChanges on an error) and Close,
// the OK packet (affected rows, insert id, an UPDATE's info; matched rows
// under CLIENT_FOUND_ROWS), LAST_INSERT_ID(), ROW_COUNT() and an UPDATE's
// FOUND_ROWS(), Questions and Com_insert, Com_update or Com_delete, and
// under autocommit the commit (endDirect), where the row's edit goes to
// the group commit unapplied as it does from the engine (endStatement).
//
// It declines, having written nothing, whatever the engine would treat in
// any other way, and the engine then runs the statement from its text:
// a server in read-only mode, a table with triggers or foreign keys in its database, check
// constraints, generated or ON UPDATE columns, hidden columns, a key that
// is not one integer column, a temporary table, a read-only database or
// transaction, a revision database; a value that is not an integer for an
// integer column or a string for a non-binary string column, a value the
// column's type does not take exactly (out of range, too long, not valid
// in the column's character set), a NULL for a NOT NULL column, an
// INSERT that does not give every column; a missing privilege. Errors of
// the write itself (a duplicate key, a lock wait timeout or deadlock) are
// the editor's, and the engine would have met the same ones: they are
// returned as the engine returns them.
//
// fastwrite_test.go compares, over random statements on two servers (one
// without these paths), the results, errors, session values and the
// tables' contents; server's fastwrite tests do it through go-sql-driver
// and Node's mysql2.

type writeKind uint8

const (
	writeInsert writeKind = iota + 1
	writeUpdate
	writeDelete
)

// writeValue is where a value of a write comes from: the execution's
// arg-th value, or a constant of the statement's text.
type writeValue struct {
	arg   int // index into the execution's values; -1 for a constant
	konst any // the constant: int64, uint64, string or nil
}

// writeSet is one assignment of an UPDATE: col = val, or col = src op val.
type writeSet struct {
	col string // as written
	op  byte   // 0, '+' or '-'
	src string // the column op reads, as written
	val writeValue
}

// writeTemplate is a recognized write statement.
type writeTemplate struct {
	kind  writeKind
	db    string // "" for the session's current database
	table string // as written
	cols  []string
	vals  []writeValue // an INSERT's values, in cols order (all columns in order when cols is nil)
	sets  []writeSet
	key   string // an UPDATE's or DELETE's WHERE column, as written
	keyV  writeValue
	nargs int
	auths []sqlparser.AuthInformation

	shape atomic.Pointer[writeShape]
}

// writeShape is a template's plan for one table value of one database.
type writeShape struct {
	info    *tableInfo
	db      string
	sch     sql.Schema
	keyType sql.Type
	ai      int   // the auto-increment column, or -1
	pos     []int // an INSERT's: schema position of each value; an UPDATE's: of each set's column
	src     []int // an UPDATE's: schema position of each set's src, or -1
}

// writeTemplates keeps the templates of write statements by prepared
// statement text or by text shape (nil: not a write the direct path takes).
type writeTemplates struct {
	m sync.Map
	n atomic.Int64
}

func (w *writeTemplates) get(key string) (*writeTemplate, bool) {
	v, ok := w.m.Load(key)
	if !ok {
		return nil, false
	}
	return v.(*writeTemplate), true
}

func (w *writeTemplates) put(key string, t *writeTemplate) *writeTemplate {
	if w.n.Load() >= maxFastTemplates {
		w.m.Range(func(k, _ any) bool { w.m.Delete(k); return true })
		w.n.Store(0)
	}
	if old, loaded := w.m.LoadOrStore(key, t); loaded {
		return old.(*writeTemplate)
	}
	w.n.Add(1)
	return t
}

// template returns the template of the statement text q (with '?'
// placeholders), parsing it the first time.
func (w *writeTemplates) template(q string) *writeTemplate {
	if t, ok := w.get(q); ok {
		return t
	}
	var t *writeTemplate
	if stmt, err := sqlparser.Parse(q); err == nil {
		t = writeTemplateOf(stmt)
	}
	return w.put(q, t)
}

// writeTemplateOf returns the template of a parsed statement, or nil when
// it is not one of the shapes.
func writeTemplateOf(stmt sqlparser.Statement) *writeTemplate {
	t := &writeTemplate{}
	var rebuilt sqlparser.Statement
	switch s := stmt.(type) {
	case *sqlparser.Insert:
		if s.Action != sqlparser.InsertStr {
			return nil
		}
		var rows sqlparser.Values
		switch r := s.Rows.(type) {
		case sqlparser.Values:
			rows = r
		case *sqlparser.AliasedValues:
			if !r.As.IsEmpty() || len(r.Columns) > 0 {
				return nil
			}
			rows = r.Values
		default:
			return nil
		}
		if len(rows) != 1 || (len(s.Columns) > 0 && len(s.Columns) != len(rows[0])) {
			return nil
		}
		if !t.tableName(s.Table) {
			return nil
		}
		t.kind = writeInsert
		for _, c := range s.Columns {
			t.cols = append(t.cols, c.String())
		}
		for _, e := range rows[0] {
			v, ok := t.value(e)
			if !ok {
				return nil
			}
			t.vals = append(t.vals, v)
		}
		t.auths = append(t.auths, s.Auth)
		rebuilt = &sqlparser.Insert{Action: s.Action, Table: s.Table, Columns: s.Columns, Rows: s.Rows}
	case *sqlparser.Update:
		at, ok := t.target(s.TableExprs)
		if !ok {
			return nil
		}
		t.kind = writeUpdate
		for _, a := range s.Exprs {
			if a.Name == nil || !plainColumn(a.Name) {
				return nil
			}
			set := writeSet{col: a.Name.Name.String()}
			switch x := a.Expr.(type) {
			case *sqlparser.BinaryExpr:
				c, ok := x.Left.(*sqlparser.ColName)
				if !ok || !plainColumn(c) || (x.Operator != sqlparser.PlusStr && x.Operator != sqlparser.MinusStr) {
					return nil
				}
				set.op, set.src = x.Operator[0], c.Name.String()
				if set.val, ok = t.value(x.Right); !ok {
					return nil
				}
			default:
				v, ok := t.value(a.Expr)
				if !ok {
					return nil
				}
				set.val = v
			}
			t.sets = append(t.sets, set)
		}
		// The WHERE's placeholders come after the SET's.
		if !t.where(s.Where) {
			return nil
		}
		t.auths = append(t.auths, at.Auth)
		rebuilt = &sqlparser.Update{TableExprs: s.TableExprs, Exprs: s.Exprs, Where: s.Where}
	case *sqlparser.Delete:
		if len(s.Targets) > 0 || len(s.Partitions) > 0 {
			return nil
		}
		at, ok := t.target(s.TableExprs)
		if !ok || !t.where(s.Where) {
			return nil
		}
		t.kind = writeDelete
		t.auths = append(t.auths, at.Auth)
		rebuilt = &sqlparser.Delete{TableExprs: s.TableExprs, Where: s.Where}
	default:
		return nil
	}
	// Nothing the template does not hold: no comment, IGNORE, ON
	// DUPLICATE KEY, ORDER BY, LIMIT, WITH, RETURNING, hint or partition.
	if sqlparser.String(rebuilt) != sqlparser.String(stmt) {
		return nil
	}
	return t
}

// tableName takes a statement's table: a name with or without a database.
func (t *writeTemplate) tableName(n sqlparser.TableName) bool {
	if n.Name.IsEmpty() || !n.SchemaQualifier.IsEmpty() {
		return false
	}
	t.table, t.db = n.Name.String(), n.DbQualifier.String()
	return true
}

// target takes an UPDATE's or DELETE's one table, without alias, AS OF,
// index hints or partitions.
func (t *writeTemplate) target(te sqlparser.TableExprs) (*sqlparser.AliasedTableExpr, bool) {
	if len(te) != 1 {
		return nil, false
	}
	at, ok := te[0].(*sqlparser.AliasedTableExpr)
	if !ok || !at.As.IsEmpty() || at.Hints != nil || at.AsOf != nil || len(at.Partitions) > 0 || at.Lateral {
		return nil, false
	}
	n, ok := at.Expr.(sqlparser.TableName)
	if !ok || !t.tableName(n) {
		return nil, false
	}
	return at, true
}

// where takes WHERE col = value.
func (t *writeTemplate) where(w *sqlparser.Where) bool {
	if w == nil || w.Type != sqlparser.WhereStr {
		return false
	}
	cmp, ok := w.Expr.(*sqlparser.ComparisonExpr)
	if !ok || cmp.Operator != sqlparser.EqualStr || cmp.Escape != nil {
		return false
	}
	c, ok := cmp.Left.(*sqlparser.ColName)
	if !ok || !plainColumn(c) {
		return false
	}
	t.key = c.Name.String()
	t.keyV, ok = t.value(cmp.Right)
	return ok
}

// plainColumn reports whether c is a column named without table.
func plainColumn(c *sqlparser.ColName) bool {
	return c.Qualifier.IsEmpty() && c.StoredProcVal == nil && !c.Name.IsEmpty()
}

// value takes a placeholder (:v1, :v2, ... in order), an integer or
// string constant, or NULL.
func (t *writeTemplate) value(e sqlparser.Expr) (writeValue, bool) {
	switch v := e.(type) {
	case *sqlparser.NullVal:
		return writeValue{arg: -1}, true
	case *sqlparser.SQLVal:
		switch v.Type {
		case sqlparser.ValArg:
			n, err := strconv.Atoi(strings.TrimPrefix(string(v.Val), ":v"))
			if err != nil || n != t.nargs+1 {
				return writeValue{}, false
			}
			t.nargs++
			return writeValue{arg: n - 1}, true
		case sqlparser.StrVal:
			return writeValue{arg: -1, konst: string(v.Val)}, true
		case sqlparser.IntVal:
			if x, ok := intLiteral(string(v.Val)); ok {
				return writeValue{arg: -1, konst: x}, true
			}
		}
	}
	return writeValue{}, false
}

// intLiteral parses a decimal integer as an int64, or a uint64 beyond it.
func intLiteral(s string) (any, bool) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i, true
	}
	if u, err := strconv.ParseUint(s, 10, 64); err == nil {
		return u, true
	}
	return nil, false
}

// textShape splits the text query q into its shape (each integer or
// string literal replaced by '?', tokens joined by one space) and the
// literals' values, or reports false for a query whose tokens it does not
// take: anything that is not an INSERT, UPDATE or DELETE, comments,
// quoted strings with backslashes or doubled quotes, double quotes,
// numbers other than plain decimal integers, variables, placeholders,
// and any operator but = + - , . ( ).
func textShape(q string) (string, []any, bool) {
	q = sql.RemoveSpaceAndDelimiter(q, ';')
	if len(q) < 6 {
		return "", nil, false
	}
	switch strings.ToLower(q[:6]) {
	case "insert", "update", "delete":
	default:
		return "", nil, false
	}
	var b strings.Builder
	b.Grow(64)
	var vals []any
	var last byte // the last token's first byte
	emit := func(tok string) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(tok)
		last = tok[0]
	}
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case isIdentStart(c):
			j := i + 1
			for j < len(q) && isIdentByte(q[j]) {
				j++
			}
			emit(q[i:j])
			i = j
		case c == '`':
			j := strings.IndexByte(q[i+1:], '`')
			if j < 0 {
				return "", nil, false
			}
			j += i + 2
			if j < len(q) && q[j] == '`' { // a doubled backquote
				return "", nil, false
			}
			emit(q[i:j])
			i = j
		case isDigit(c) || (c == '-' && i+1 < len(q) && isDigit(q[i+1]) && (last == '(' || last == ',' || last == '=')):
			j := i + 1
			for j < len(q) && isDigit(q[j]) {
				j++
			}
			if j < len(q) && (isIdentByte(q[j]) || q[j] == '.') {
				return "", nil, false
			}
			v, ok := intLiteral(q[i:j])
			if !ok {
				return "", nil, false
			}
			vals = append(vals, v)
			emit("?")
			i = j
		case c == '\'':
			j := strings.IndexByte(q[i+1:], '\'')
			if j < 0 {
				return "", nil, false
			}
			s := q[i+1 : i+1+j]
			j += i + 2
			if strings.IndexByte(s, '\\') >= 0 || (j < len(q) && q[j] == '\'') {
				return "", nil, false
			}
			vals = append(vals, s)
			emit("?")
			i = j
		case c == '-' && i+1 < len(q) && q[i+1] == '-': // a comment
			return "", nil, false
		case c == '(' || c == ')' || c == ',' || c == '=' || c == '+' || c == '-' || c == '.':
			emit(q[i : i+1])
			i++
		default:
			return "", nil, false
		}
	}
	return b.String(), vals, true
}

func isDigit(c byte) bool      { return c >= '0' && c <= '9' }
func isIdentStart(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' }
func isIdentByte(c byte) bool  { return isIdentStart(c) || isDigit(c) || c == '$' }

// ExecWrite runs the text query of session s itself when it is a
// single-row write the direct path takes (see above), and gives its OK
// packet to callback. It reports whether it ran the query.
func (e *Embedded) ExecWrite(ctx context.Context, s *Session, query string, callback func(*sqltypes.Result, bool) error) (handled bool, err error) {
	f := e.fast
	if f == nil || s.fast != f {
		return false, nil
	}
	shape, vals, ok := textShape(query)
	if !ok {
		return false, nil
	}
	t := f.writes.template(shape)
	if t == nil || t.nargs != len(vals) {
		return false, nil
	}
	return e.execWrite(ctx, s, query, t, vals, func(r *sqltypes.Result) error { return callback(r, false) })
}

// ExecPreparedWrite runs an execution of the prepared statement query,
// with the values binds, of session s itself when it is a single-row
// write the direct path takes (see above). It reports whether it ran it.
func (e *Embedded) ExecPreparedWrite(ctx context.Context, s *Session, query string, binds map[string]*querypb.BindVariable, callback func(*sqltypes.Result) error) (handled bool, err error) {
	f := e.fast
	if f == nil || s.fast != f || !plainWrite(query) {
		return false, nil
	}
	t := f.writes.template(query)
	if t == nil {
		return false, nil
	}
	vals := make([]any, t.nargs)
	for i := range vals {
		v, ok := bindValue(binds["v"+strconv.Itoa(i+1)])
		if !ok {
			return false, nil
		}
		vals[i] = v
	}
	return e.execWrite(ctx, s, query, t, vals, callback)
}

// bindValue returns the value the engine's binder makes of a placeholder's
// value, when it is one the direct path takes: NULL, an integer, a whole
// floating-point number of at most 2^53 either way (as an integer: the
// columns it may go to convert both alike), or a string.
func bindValue(bv *querypb.BindVariable) (any, bool) {
	if bv == nil {
		return nil, false
	}
	v, err := sqltypes.BindVariableToValue(bv)
	if err != nil {
		return nil, false
	}
	switch {
	case v.Type() == sqltypes.Null:
		return nil, true
	case v.IsIntegral():
		return intLiteral(v.ToString())
	case v.IsFloat():
		x, err := strconv.ParseFloat(v.ToString(), 64)
		if err != nil || x != math.Trunc(x) || math.Abs(x) > 1<<53 || (x == 0 && math.Signbit(x)) {
			return nil, false
		}
		return int64(x), true
	case v.IsQuoted():
		return v.ToString(), true
	}
	return nil, false
}

// execWrite runs one execution of t with the values vals, or declines.
func (e *Embedded) execWrite(ctx context.Context, s *Session, query string, t *writeTemplate, vals []any, callback func(*sqltypes.Result) error) (bool, error) {
	f := e.fast
	if e.Engine.ReadOnly.Load() {
		return false, nil // the engine refuses every write
	}
	sctx, end, ok := e.beginDirect(ctx, s, query)
	if !ok {
		return false, nil
	}
	defer end()
	auth := e.Engine.Analyzer.Catalog.AuthorizationHandler()
	state := auth.NewQueryState(sctx)
	for _, a := range t.auths {
		if err := auth.HandleAuth(sctx, state, a); err != nil {
			return false, nil // the engine's bind refuses it with its own error
		}
	}
	if !directTransaction(sctx, s) {
		return false, nil
	}
	tx, ok := sctx.GetTransaction().(*Transaction)
	if !ok || tx == nil || tx.IsReadOnly() {
		return false, nil
	}
	tx.continueDeferred(sctx.Pid())
	table, sh := f.writeTarget(sctx, t)
	if sh == nil {
		return false, nil
	}
	// The previous statement's warnings go now, after the privilege check:
	// the engine clears them once it has bound a statement (one its binder
	// refuses keeps them). A write declined below goes to the engine,
	// which binds it and clears them again.
	sctx.ClearWarnings()
	w := &directWrite{t: t, sh: sh, table: table, vals: vals}
	res, handled, err := w.run(sctx)
	if !handled {
		return false, nil
	}

	// From here on the execution is this one's.
	sql.IncrementStatusVariable(sctx, "Questions", 1)
	sql.IncrementStatusVariable(sctx, []string{writeInsert: "Com_insert", writeUpdate: "Com_update", writeDelete: "Com_delete"}[t.kind], 1)
	f.writesDone.Add(1)
	if err != nil {
		return true, endFailedWrite(sctx, s, err)
	}
	sctx.GetLastQueryInfo().RowCount.Store(int64(res.RowsAffected))
	if err := endDirect(sctx, s, nil); err != nil {
		return true, err
	}
	return true, callback(res)
}

// endFailedWrite ends a write that failed (its edits discarded) as the
// engine ends one: its iterators close, and under autocommit (outside an
// explicit transaction) the transaction commits, with nothing of the
// statement in it; that ends it and lets go of the row locks the
// statement took. The statement's error is the one returned.
func endFailedWrite(ctx *sql.Context, s *Session, stmtErr error) error {
	tx := ctx.GetTransaction()
	if tx == nil || ctx.GetIgnoreAutoCommit() {
		return stmtErr
	}
	if autocommit, err := plan.IsSessionAutocommit(ctx); err != nil || !autocommit {
		return stmtErr
	}
	if err := s.CommitTransaction(ctx, tx); err != nil {
		ctx.GetLogger().Warnf("ending the transaction of a failed statement: %v", err)
	}
	ctx.SetTransaction(nil)
	return stmtErr
}

// writeTarget finds t's table as the engine's binder does and returns it
// with t's shape for it, or a nil shape when the direct path does not
// take the table.
func (f *fastPath) writeTarget(ctx *sql.Context, t *writeTemplate) (*Table, *writeShape) {
	dbName := t.db
	if dbName == "" {
		dbName = ctx.GetCurrentDatabase()
	}
	if dbName == "" || strings.Contains(dbName, "/") {
		return nil, nil
	}
	st, ok := f.p.state(dbName)
	if !ok {
		return nil, nil
	}
	db := f.p.database(ctx, st)
	if db.IsReadOnly() {
		return nil, nil
	}
	tbl, found, err := db.GetTableInsensitive(ctx, t.table)
	if err != nil || !found {
		return nil, nil
	}
	table, ok := tbl.(*Table)
	if !ok || table.name != t.table || table.lookup != nil || table.proj != nil || table.lock != nil || table.db.temp {
		return nil, nil
	}
	// Triggers and foreign keys live in the database's root, not in the
	// table: looked at for each execution.
	d, err := table.db.tx(ctx)
	if err != nil || d.ReadOnly() {
		return nil, nil
	}
	for _, prefix := range []string{triggerPrefix, fkPrefix} {
		if es, err := d.Root().Entries(ctx, prefix); err != nil || len(es) > 0 {
			return nil, nil
		}
	}
	sh := t.shape.Load()
	if sh == nil || sh.info != table.info || sh.db != db.Name() {
		if sh = t.shapeFor(ctx, db, table); sh == nil {
			return nil, nil
		}
		t.shape.Store(sh)
	}
	return table, sh
}

// shapeFor checks that the direct path takes t on table and returns its
// plan for it, or nil.
func (t *writeTemplate) shapeFor(ctx *sql.Context, db *Database, table *Table) *writeShape {
	s := table.info.t.Schema()
	if s.Keyless() || len(s.PrimaryKey) != 1 || len(s.Checks) > 0 {
		return nil
	}
	for _, c := range s.Columns {
		if c.Generated != "" || c.OnUpdate != "" || c.Hidden {
			return nil
		}
	}
	sch := table.info.sch.Schema
	if len(sch) != len(s.Columns) {
		return nil
	}
	sh := &writeShape{info: table.info, db: db.Name(), sch: sch, ai: -1}
	for i, c := range sch {
		if c.AutoIncrement {
			sh.ai = i
		}
	}
	plain := func(typ sql.Type) bool { return types.IsInteger(typ) || types.IsTextOnly(typ) }
	switch t.kind {
	case writeInsert:
		names := t.cols
		if names == nil {
			for _, c := range sch {
				names = append(names, c.Name)
			}
		}
		if len(names) != len(sch) || len(t.vals) != len(sch) {
			return nil // every column given: no defaults to evaluate
		}
		seen := make([]bool, len(sch))
		for _, n := range names {
			i := sch.IndexOfColName(n)
			if i < 0 || seen[i] || !plain(sch[i].Type) {
				return nil
			}
			seen[i] = true
			sh.pos = append(sh.pos, i)
		}
	case writeUpdate:
		for _, set := range t.sets {
			i := sch.IndexOfColName(set.col)
			if i < 0 || !plain(sch[i].Type) {
				return nil
			}
			j := -1
			if set.op != 0 {
				if j = sch.IndexOfColName(set.src); j < 0 || !types.IsInteger(sch[j].Type) || !types.IsInteger(sch[i].Type) {
					return nil
				}
			}
			sh.pos, sh.src = append(sh.pos, i), append(sh.src, j)
		}
	}
	if t.kind != writeInsert {
		pkCol := sch[s.PrimaryKey[0]]
		if !strings.EqualFold(pkCol.Name, t.key) || !types.IsInteger(pkCol.Type) {
			return nil
		}
		sh.keyType = pkCol.Type
	}
	return sh
}

// directWrite is one execution of a write template.
type directWrite struct {
	t     *writeTemplate
	sh    *writeShape
	table *Table
	vals  []any
}

// value returns the value of v in this execution.
func (w *directWrite) value(v writeValue) any {
	if v.arg >= 0 {
		return w.vals[v.arg]
	}
	return v.konst
}

// convert converts v for column i as the engine's insert (round: number
// types round) or its SET does, or reports false when the column's type
// does not take the value exactly or is not the value's kind.
func (w *directWrite) convert(ctx *sql.Context, i int, v any, round bool) (any, bool) {
	col := w.sh.sch[i]
	if v == nil {
		return nil, col.Nullable
	}
	switch v.(type) {
	case string:
		if !types.IsTextOnly(col.Type) {
			return nil, false
		}
	default:
		if !types.IsInteger(col.Type) {
			return nil, false
		}
	}
	var out any
	var inRange sql.ConvertInRange
	var err error
	if rt, ok := col.Type.(sql.RoundingNumberType); ok && round {
		out, inRange, err = rt.ConvertRound(ctx, v)
	} else {
		out, inRange, err = col.Type.Convert(ctx, v)
	}
	if err != nil || inRange != sql.InRange {
		return nil, false
	}
	return out, true
}

// run executes the write. handled false: the engine is to run the
// statement (nothing was written).
func (w *directWrite) run(ctx *sql.Context) (*sqltypes.Result, bool, error) {
	switch w.t.kind {
	case writeInsert:
		return w.insert(ctx)
	default:
		return w.byKey(ctx)
	}
}

func (w *directWrite) insert(ctx *sql.Context) (*sqltypes.Result, bool, error) {
	sh := w.sh
	row := make(sql.Row, len(sh.sch))
	var aiGiven any
	for k, i := range sh.pos {
		v := w.value(w.t.vals[k])
		if i == sh.ai {
			aiGiven = v
			continue
		}
		c, ok := w.convert(ctx, i, v, true)
		if !ok {
			return nil, false, nil
		}
		row[i] = c
	}
	generated := false
	if sh.ai >= 0 {
		var ok bool
		if row[sh.ai], generated, ok = w.autoIncrement(ctx, aiGiven); !ok {
			return nil, false, nil
		}
	}
	ed := w.table.openEditor(ctx, false)
	if ed.err != nil {
		return nil, false, nil
	}
	ed.StatementBegin(ctx)
	if err := ed.Insert(ctx, row); err != nil {
		return nil, true, closeEditor(ctx, ed, sql.NewWrappedInsertError(row, err))
	}
	if err := closeEditor(ctx, ed, nil); err != nil {
		return nil, true, err
	}
	res := &sqltypes.Result{RowsAffected: 1}
	if sh.ai >= 0 {
		id := toInt64(row[sh.ai])
		res.InsertID = uint64(id)
		if generated {
			ctx.GetLastQueryInfo().LastInsertId.Store(id)
		}
	}
	return res, true, nil
}

// autoIncrement returns the value of the auto-increment column for the
// given one, as the engine's AutoIncrement expression makes it: NULL, and
// 0 unless NO_AUTO_VALUE_ON_ZERO, take the counter's next value
// (generated); a positive value moves the counter past it; a negative one
// is stored as it is. false: the engine is to run the statement; the
// counter is consulted only once every other check passed.
func (w *directWrite) autoIncrement(ctx *sql.Context, given any) (any, bool, bool) {
	col := w.sh.sch[w.sh.ai]
	if given != nil {
		if _, ok := given.(string); ok {
			return nil, false, false
		}
		cmp, err := col.Type.Compare(ctx, given, col.Type.Zero())
		if err != nil {
			return nil, false, false
		}
		if cmp == 0 && !sql.LoadSqlMode(ctx).ModeEnabled(sql.NoAutoValueOnZero) {
			given = nil
		} else if cmp <= 0 {
			c, ok := w.convert(ctx, w.sh.ai, given, true)
			return c, false, ok
		} else if _, ok := w.convert(ctx, w.sh.ai, given, true); !ok {
			return nil, false, false
		}
	}
	seq, err := w.table.GetNextAutoIncrementValue(ctx, given)
	if err != nil {
		return nil, false, false
	}
	generated := given == nil
	if generated {
		given = seq
	}
	c, ok := w.convert(ctx, w.sh.ai, given, true)
	return c, generated, ok
}

// byKey runs an UPDATE or DELETE of the row of one key.
func (w *directWrite) byKey(ctx *sql.Context) (*sqltypes.Result, bool, error) {
	sh := w.sh
	key, ok := keyValue(ctx, sh.keyType, literalOf(w.value(w.t.keyV)))
	if !ok {
		return nil, false, nil
	}
	// Constant values are converted before the row is read.
	var consts []any
	if w.t.kind == writeUpdate {
		consts = make([]any, len(w.t.sets))
		for k, set := range w.t.sets {
			if set.op == 0 {
				c, ok := w.convert(ctx, sh.pos[k], w.value(set.val), false)
				if !ok {
					return nil, false, nil
				}
				consts[k] = c
			} else if v := w.value(set.val); v == nil || !isInteger(v) {
				return nil, false, nil
			}
		}
	}
	kv, ok := convertKey(ctx, sh.keyType, key)
	if !ok {
		return nil, false, nil
	}
	ed := w.table.openEditor(ctx, true)
	if ed.err != nil {
		return nil, false, nil
	}
	ed.StatementBegin(ctx)
	old, found, err := w.read(ctx, ed, ed.w.ed.Base().KeyPrefix([]tables.Value{kv}))
	if err != nil {
		return nil, true, closeEditor(ctx, ed, err)
	}
	if w.t.kind == writeDelete {
		res := &sqltypes.Result{}
		if found {
			if err := ed.Delete(ctx, old); err != nil {
				return nil, true, closeEditor(ctx, ed, err)
			}
			res.RowsAffected = 1
		}
		return res, true, closeEditor(ctx, ed, nil)
	}
	matched, changed := 0, 0
	if found {
		row := old.Copy()
		for k, set := range w.t.sets {
			v := consts[k]
			if set.op != 0 {
				var ok bool
				if v, ok = addInt(row[sh.src[k]], w.value(set.val), set.op == '-'); !ok {
					closeEditor(ctx, ed, errDeclined)
					return nil, false, nil
				}
				if v, ok = w.convert(ctx, sh.pos[k], v, false); !ok {
					closeEditor(ctx, ed, errDeclined)
					return nil, false, nil
				}
			}
			row[sh.pos[k]] = v
		}
		matched = 1
		same, err := old.Equals(ctx, row, sh.sch)
		if err != nil {
			closeEditor(ctx, ed, errDeclined)
			return nil, false, nil
		}
		if !same {
			if err := ed.Update(ctx, old, row); err != nil {
				return nil, true, closeEditor(ctx, ed, err)
			}
			changed = 1
		}
	}
	if err := closeEditor(ctx, ed, nil); err != nil {
		return nil, true, err
	}
	affected := changed
	if ctx.Client().Capabilities&mysql.CapabilityClientFoundRows != 0 {
		affected = matched
	}
	ctx.GetLastQueryInfo().FoundRows.Store(int64(matched))
	return &sqltypes.Result{
		RowsAffected: uint64(affected),
		Info:         plan.UpdateInfo{Matched: matched, Updated: changed}.String(),
	}, true, nil
}

// errDeclined discards a statement the direct path hands back to the
// engine.
var errDeclined = sql.ErrRowEditCanceled.New()

// read returns the row stored under key k as the engine's UPDATE and
// DELETE read it, through the table's primary-key lookup while the
// statement's editor ed is open: the transaction's version of the row,
// locked, and on its first lock brought up to the latest committed
// version (as lockRow does); a row the transaction does not see is not locked,
// the lookup having nothing to lock. The transaction's version is read
// from the table's writer, which holds its snapshot with its writes
// whether or not they are in its root yet (deferWrites): the lookup
// reads the root, the same rows once the writer's edits are in it.
func (w *directWrite) read(ctx *sql.Context, ed *editor, k []byte) (sql.Row, bool, error) {
	cur, err := rawGet(ctx, ed.w.ed, k)
	if err != nil || !cur.OK {
		return nil, false, err
	}
	// lockRow's steps, with the version just read: on the first lock the
	// row adopts the latest committed version; a row locked before has
	// its writes and adoptions in the writer already.
	first, err := ed.d.lock(ctx, w.table.db.p, w.table.name, k, lockWrite)
	if err != nil {
		return nil, false, err
	}
	v := cur
	if first {
		if v, err = ed.d.adopt(ctx, w.table.db, ed.w, k, cur); err != nil {
			return nil, false, err
		}
	}
	if !v.OK {
		return nil, false, nil // deleted since the snapshot
	}
	vals, err := ed.w.ed.Base().Decode(ctx, k, v.Val)
	if err != nil {
		return nil, false, err
	}
	row, err := w.table.toRow(vals)
	return row, err == nil, err
}

// closeEditor ends the editor's statement as the engine's editing
// iterators do: StatementComplete, or DiscardChanges when the statement
// failed, then Close. It returns the statement's error, or the first of
// the editor's.
func closeEditor(ctx *sql.Context, ed *editor, stmtErr error) error {
	var err error
	if stmtErr != nil {
		err = ed.DiscardChanges(ctx, stmtErr)
	} else {
		err = ed.StatementComplete(ctx)
	}
	if cerr := ed.Close(ctx); err == nil {
		err = cerr
	}
	if stmtErr != nil {
		return stmtErr
	}
	return err
}

// addInt returns a + b (or a - b), integers of any width, when the
// result is exact within int64; false otherwise (or when a is NULL:
// NULL + b is NULL, which the NOT NULL columns of sysbench refuse, and
// which is left to the engine).
func addInt(a, b any, minus bool) (any, bool) {
	x, ok := asInt64(a)
	y, ok2 := asInt64(b)
	if !ok || !ok2 {
		return nil, false
	}
	if minus {
		if y == math.MinInt64 {
			return nil, false
		}
		y = -y
	}
	r := x + y
	if (y > 0 && r < x) || (y < 0 && r > x) {
		return nil, false
	}
	return r, true
}

// asInt64 returns an integer value as an int64, when it fits.
func asInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case int:
		return int64(x), true
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x), true
		}
	case uint:
		if uint64(x) <= math.MaxInt64 {
			return int64(x), true
		}
	}
	return 0, false
}

// toInt64 is the engine's reading of an auto-increment value for the
// insert id.
func toInt64(v any) int64 {
	if i, ok := asInt64(v); ok {
		return i
	}
	if u, ok := v.(uint64); ok {
		return int64(u)
	}
	return 0
}
