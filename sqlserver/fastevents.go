package sqlserver

import (
	"context"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/mysql_db"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/verso-db/verso/eventindex"
	"github.com/verso-db/verso/systables"
)

// Reads of the event log over the wire without the engine's handler.
//
// A client that pages through the event log sends, for each page of up to
// 2,000 events,
//
//	SELECT position, stream_id, ... FROM dolt_read_all('$idx-ce-Order', 4001, 2000)
//
// (or dolt_read_stream), a text query. Through the engine's handler each
// event became a row of boxed values, went through two goroutines (the
// handler spools rows from one to another) and was converted back to
// text by the columns' types: more CPU than reading the events from the
// log, and more than the protocol's writes.
//
// ExecEventRead answers such a query itself: a SELECT of the plain columns
// of the read function (or *) from one call of dolt_read_all or
// dolt_read_stream with literal arguments, nothing else (no WHERE, ORDER
// BY, LIMIT, alias, hint or comment; one statement). It does what
// ExecPrepared does around the read (fastdirect.go: process list, session
// command, transaction, warnings, Questions, autocommit, FOUND_ROWS and
// ROW_COUNT; like the engine, which counts a select by the tables of its
// plan, it leaves Com_select alone), finds the database as the engine's
// binder does (the session's current one, through the catalog, so the
// account's access to it is checked), checks the call with the table
// function's own NewInstance (events_funcs.go), and writes each page of
// events as text rows straight from the log's events
// (systables.ReadEventPages): the values are the bytes the engine's types
// write for them (see eventWriter.rows). The result columns are learned
// from the engine's analysis of the query the first time a select list
// meets a database, so their descriptions are the engine's.
//
// It declines (the engine then runs the query untouched) whatever else it
// meets: another shape, a character_set_results other than utf8mb4 or
// binary (the engine re-encodes the text), a call the function refuses,
// no current database.

// eventShape is what ExecEventRead learned of a select list over a read
// function in one database.
type eventShape struct {
	cols   []int      // EventSchema ordinals of the result columns
	sch    sql.Schema // the engine's result columns
	fields atomic.Pointer[shapeFields]
}

// eventShapes are a fast path's learned event reads, by eventShapeKey.
type eventShapes struct {
	mu sync.RWMutex
	m  map[string]*eventShape // nil value: the engine's plan is not a plain read
}

// maxEventShapes bounds eventShapes (past it, they are learned again).
const maxEventShapes = 1024

// maxEventQuery is the longest query text ExecEventRead looks at.
const maxEventQuery = 4096

// ExecEventRead runs the text query of session s itself when it is a read
// of the event log it takes (see above), giving its result to callback a
// page at a time (the values are the callback's only until it returns).
// It reports whether it ran the query.
func (e *Embedded) ExecEventRead(ctx context.Context, s *Session, query string, callback func(*sqltypes.Result, bool) error) (handled bool, err error) {
	f := e.fast
	if f == nil || s.fast != f || len(query) > maxEventQuery || !containsFold(query, "dolt_read_") {
		return false, nil
	}
	pctx := sql.NewContext(ctx, sql.WithSession(s)) // for the session's sql_mode
	name, list, cols, args, ok := eventReadShape(pctx, query)
	if !ok {
		return false, nil
	}
	switch pctx.GetCharacterSetResults() {
	case sql.CharacterSet_Unspecified, sql.CharacterSet_binary, sql.CharacterSet_utf8mb4:
	default:
		return false, nil
	}
	dbName := pctx.GetCurrentDatabase()
	if dbName == "" {
		return false, nil
	}

	sctx, end, ok := e.beginDirect(ctx, s, query)
	if !ok {
		return false, nil
	}
	defer end()
	if !directTransaction(sctx, s) {
		return false, nil
	}
	db, err := e.Engine.Analyzer.Catalog.Database(sctx, dbName)
	if err != nil {
		return false, nil
	}
	// As the binder takes it for a table function.
	if pdb, ok := db.(mysql_db.PrivilegedDatabase); ok {
		db = pdb.Unwrap()
	}
	exprs := make([]sql.Expression, len(args))
	vals := make([]any, len(args))
	for i, a := range args {
		exprs[i], vals[i] = eventArg(a)
	}
	inst, err := (&eventReadFunc{name: name}).NewInstance(sctx, db, exprs)
	if err != nil {
		return false, nil
	}
	fn := inst.(*eventReadFunc)
	sh := f.events.shape(sctx, e, query, name, db.Name(), list, cols)
	if sh == nil {
		return false, nil
	}
	pages, err := systables.ReadEventPages(sctx, fn.db.sessionView(), name, vals)
	if err != nil {
		return false, nil // the engine gives the error
	}

	// From here on the query is this one's.
	// Questions counts it, Com_select does not (see above).
	sql.IncrementStatusVariable(sctx, "Questions", 1)
	sctx.ClearWarnings()
	f.direct.Add(1)
	fields := sh.resultFields(sctx)
	var w eventWriter
	var found int64
	sent := false
	for {
		evs, err := pages.Next(sctx)
		if err == io.EOF {
			break
		}
		if err == nil {
			err = sctx.Err()
		}
		if err != nil {
			return true, endDirect(sctx, s, err)
		}
		res := &sqltypes.Result{Fields: fields, Rows: w.rows(sctx, sh, evs)}
		found += int64(len(evs))
		if err := callback(res, false); err != nil {
			return true, endDirect(sctx, s, err)
		}
		sent = true
	}
	if !sent {
		if err := callback(&sqltypes.Result{Fields: fields}, false); err != nil {
			return true, endDirect(sctx, s, err)
		}
	}
	if err := endSelect(sctx, s, found); err != nil {
		return true, err
	}
	return true, nil
}

// eventReadShape parses query and returns the read function it calls, its
// select list (the column names and function as written, which name the
// result columns and their table), their EventSchema ordinals and the function's arguments, or
// false when it is not a plain read (see ExecEventRead).
func eventReadShape(ctx *sql.Context, query string) (name, list string, cols []int, args []sqlparser.Expr, ok bool) {
	stmt, err := sqlparser.ParseWithOptions(ctx, sql.RemoveSpaceAndDelimiter(query, ';'), sql.LoadSqlMode(ctx).ParserOptions())
	if err != nil {
		return "", "", nil, nil, false
	}
	sel, ok := stmt.(*sqlparser.Select)
	if !ok || sel.Into != nil || sel.With != nil || sel.Where != nil || sel.Having != nil || len(sel.GroupBy) > 0 ||
		len(sel.OrderBy) > 0 || sel.Limit != nil || sel.Lock != nil && (sel.Lock.Type != "" || len(sel.Lock.Tables) > 0) || len(sel.Window) > 0 || len(sel.Comments) > 0 ||
		!plainQueryOpts(sel.QueryOpts) || len(sel.From) != 1 || len(sel.SelectExprs) == 0 {
		return "", "", nil, nil, false
	}
	tf, ok := sel.From[0].(*sqlparser.TableFuncExpr)
	if !ok || !tf.Alias.IsEmpty() || len(tf.Columns) > 0 {
		return "", "", nil, nil, false
	}
	switch {
	case strings.EqualFold(tf.Name, systables.ReadAllName):
		name = systables.ReadAllName
	case strings.EqualFold(tf.Name, systables.ReadStreamName):
		name = systables.ReadStreamName
	default:
		return "", "", nil, nil, false
	}
	for _, a := range tf.Exprs {
		ae, ok := a.(*sqlparser.AliasedExpr)
		if !ok || !ae.As.IsEmpty() {
			return "", "", nil, nil, false
		}
		switch v := ae.Expr.(type) {
		case *sqlparser.NullVal:
		case *sqlparser.SQLVal:
			if v.Type != sqlparser.StrVal && v.Type != sqlparser.IntVal {
				return "", "", nil, nil, false
			}
			if v.Type == sqlparser.IntVal {
				if _, err := strconv.ParseInt(string(v.Val), 10, 64); err != nil {
					return "", "", nil, nil, false
				}
			}
		default:
			return "", "", nil, nil, false
		}
		args = append(args, ae.Expr)
	}
	schema := systables.EventSchema(name)
	var names []string
	for _, se := range sel.SelectExprs {
		switch x := se.(type) {
		case *sqlparser.StarExpr:
			if !x.TableName.IsEmpty() {
				return "", "", nil, nil, false
			}
			for i := range schema {
				cols = append(cols, i)
			}
			names = append(names, "*")
		case *sqlparser.AliasedExpr:
			c, ok := x.Expr.(*sqlparser.ColName)
			if !ok || !x.As.IsEmpty() || !c.Qualifier.IsEmpty() || c.StoredProcVal != nil {
				return "", "", nil, nil, false
			}
			i := schema.IndexOfColName(c.Name.String())
			if i < 0 {
				return "", "", nil, nil, false
			}
			cols = append(cols, i)
			names = append(names, c.Name.String())
		default:
			return "", "", nil, nil, false
		}
	}
	// The function as written names the result columns' table.
	return name, tf.Name + "(" + strings.Join(names, ",") + ")", cols, args, true
}

// plainQueryOpts reports whether a SELECT has none of the options
// (ALL, DISTINCT, hints, SQL_CALC_FOUND_ROWS, SQL_CACHE).
func plainQueryOpts(o sqlparser.QueryOpts) bool {
	return !o.All && !o.Distinct && len(o.DistinctOn) == 0 && !o.StraightJoinHint && !o.SQLCalcFoundRows && !o.SQLCache && !o.SQLNoCache
}

// eventArg returns the engine's literal and value of a read function's
// argument (a string, an integer that fits int64, or NULL:
// eventReadShape's).
func eventArg(a sqlparser.Expr) (sql.Expression, any) {
	if v, ok := a.(*sqlparser.SQLVal); ok {
		if v.Type == sqlparser.IntVal {
			n, _ := strconv.ParseInt(string(v.Val), 10, 64)
			return literalOf(n), n
		}
		return literalOf(string(v.Val)), string(v.Val)
	}
	return literalOf(nil), nil
}

// shape returns what is learned of the select list (as written, with
// EventSchema ordinals cols) of the read function name in database db,
// learning it from the engine's analysis of query; nil when the engine's
// plan is not the plain read.
func (es *eventShapes) shape(ctx *sql.Context, e *Embedded, query, name, db, list string, cols []int) *eventShape {
	k := name + "\x00" + db + "\x00" + list
	es.mu.RLock()
	sh, ok := es.m[k]
	es.mu.RUnlock()
	if ok {
		return sh
	}
	sh = learnEventShape(ctx, e, query, name, cols)
	es.mu.Lock()
	defer es.mu.Unlock()
	if es.m == nil || len(es.m) >= maxEventShapes {
		es.m = map[string]*eventShape{}
	}
	es.m[k] = sh
	return sh
}

// learnEventShape analyzes query with the engine and returns its result
// columns, or nil when they are not EventSchema's columns cols.
func learnEventShape(ctx *sql.Context, e *Embedded, query, name string, cols []int) *eventShape {
	analyzed, err := e.Engine.AnalyzeQuery(ctx, query)
	if err != nil {
		return nil
	}
	sch := analyzed.Schema(ctx)
	want := systables.EventSchema(name)
	if len(sch) != len(cols) {
		return nil
	}
	for i, c := range sch {
		if c.Type.String() != want[cols[i]].Type.String() {
			return nil
		}
	}
	return &eventShape{cols: cols, sch: sch}
}

// resultFields returns the description of the shape's columns for ctx's
// character_set_results.
func (sh *eventShape) resultFields(ctx *sql.Context) []*querypb.Field {
	results := ctx.GetCharacterSetResults()
	if sf := sh.fields.Load(); sf != nil && sf.results == results {
		return sf.fields
	}
	fields := ResultFields(ctx, sh.sch)
	sh.fields.Store(&shapeFields{results: results, fields: fields})
	return fields
}

// eventWriter makes the text rows of pages of events.
type eventWriter struct {
	created     time.Time // the created time formatted last, and its text
	createdText []byte
}

// rows returns the rows of evs with sh's columns, their values the text
// the engine's column types write for them (the types' SQL methods): the
// decimal digits of positions and event numbers, the bytes of stream ids,
// types and categories (utf8mb4, which character_set_results utf8mb4 or
// binary leaves as they are), the 36-character event id, the created time
// as DATETIME(6) writes it, the stored JSON text of data and metadata as
// the engine passes it through (NULL when empty).
func (w *eventWriter) rows(ctx *sql.Context, sh *eventShape, evs []eventindex.Event) [][]sqltypes.Value {
	n := len(sh.cols)
	rows := make([][]sqltypes.Value, len(evs))
	vals := make([]sqltypes.Value, n*len(evs))
	// Numbers, ids and times are written into one arena a page.
	arena := make([]byte, 0, len(evs)*n*12)
	cut := func(start int) []byte { return arena[start:len(arena):len(arena)] }
	for i := range evs {
		ev := &evs[i]
		row := vals[i*n : (i+1)*n : (i+1)*n]
		for j, c := range sh.cols {
			typ := sh.sch[j].Type.Type()
			switch c {
			case systables.EventColPosition, systables.EventColNumber:
				v := uint64(ev.Position)
				if c == systables.EventColNumber {
					v = uint64(ev.Number)
				}
				start := len(arena)
				arena = strconv.AppendUint(arena, v, 10)
				row[j] = sqltypes.MakeTrusted(typ, cut(start))
			case systables.EventColStream, systables.EventColType, systables.EventColCategory:
				v := ev.Stream
				if c == systables.EventColType {
					v = ev.Type
				} else if c == systables.EventColCategory {
					v = eventindex.Category(ev.Stream)
				}
				start := len(arena)
				arena = append(arena, v...)
				row[j] = sqltypes.MakeTrusted(typ, cut(start))
			case systables.EventColID:
				start := len(arena)
				arena = ev.ID.AppendText(arena)
				row[j] = sqltypes.MakeTrusted(typ, cut(start))
			case systables.EventColCreated:
				if w.createdText == nil || !ev.Created.Equal(w.created) {
					v, err := systables.EventTimeType.SQL(ctx, nil, ev.Created)
					if err != nil {
						row[j] = sqltypes.NULL
						continue
					}
					w.created, w.createdText = ev.Created, v.Raw()
				}
				row[j] = sqltypes.MakeTrusted(typ, w.createdText)
			case systables.EventColData, systables.EventColMetadata:
				b := ev.Data
				if c == systables.EventColMetadata {
					b = ev.Metadata
				}
				if len(b) == 0 {
					row[j] = sqltypes.NULL
				} else {
					row[j] = sqltypes.MakeTrusted(typ, b)
				}
			}
		}
		rows[i] = row
	}
	return rows
}

// containsFold reports whether s contains sub (ASCII lower case),
// ignoring ASCII case.
func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i]|0x20 == sub[0] && strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// literalOf returns the engine's literal of an argument value.
func literalOf(v any) sql.Expression {
	switch v := v.(type) {
	case int64:
		return expression.NewLiteral(v, types.Int64)
	case string:
		return expression.NewLiteral(v, types.LongText)
	}
	return expression.NewLiteral(nil, types.Null)
}
