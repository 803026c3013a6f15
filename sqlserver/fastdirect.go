package sqlserver

import (
	"context"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

// Executions of fast-path prepared statements without the engine's
// handler.
//
// The fast path (fastpath.go) spares a prepared primary-key select the
// engine's planning, but the engine's connection handler still ran each
// execution: a context with a tracing span and a cancellable child, the
// binding of the values to a syntax tree, the bind of the injected
// statement, a pass of every analyzer rule, the iterators that finish a
// plan (transaction commit, process tracking), and logging fields. Under
// oltp_point_select at 4 connections that was about 27 us of the
// server's 46 us of CPU a query, against 3 us for the lookup itself.
//
// ExecPrepared runs such an execution itself, doing what the engine's
// handler and its Engine.QueryWithBindings do for it, in their order:
//
//   - a context of the session with a process id of its own (high bit
//     set, so it never meets one the engine's session manager hands out),
//     the engine's process list and memory manager;
//   - the session's command begun and ended (sql.SessionCommandBegin);
//   - the statement in the process list while it runs (SHOW PROCESSLIST
//     shows it, KILL QUERY cancels it);
//   - the user's SELECT privilege on the table, checked by the engine's
//     authorization handler as the bind of the statement checks it;
//   - the session's transaction begun if it has none, the warnings of the
//     last statement cleared, Questions and Com_select counted;
//   - the rows read as fastSelect reads them, sent as the engine's handler
//     sends them (the columns' protocol descriptions: ResultFields);
//   - under autocommit (and outside an explicit transaction) the
//     transaction committed, as the engine's committing iterator does,
//     and ROW_COUNT() and FOUND_ROWS() set as its process tracker sets
//     them.
//
// Anything it does not take (no template, values that are not integers, a
// privilege missing, a table the fast path does not run on, a fast path
// turned off) goes to the engine's handler untouched: then ExecPrepared
// reports false and has changed nothing the engine would not change itself
// (it may have begun the session's transaction, which the engine then
// uses, as it would have begun it at the same point).
//
// fastdirect_test.go and server's fastpath tests (through go-sql-driver
// and Node's mysql2) compare its answers, columns and their descriptions,
// errors and session state with the engine's.

// directPidBit marks the process ids of the direct executions' contexts
// (fastPath.pids): the engine's session manager counts up from 1, these
// up from 2^63.
const directPidBit = 1 << 63

// isDirect reports whether ctx is a direct execution's. Of those, only the
// single-row writes (fastwrite.go) end statements of a table's writer.
func isDirect(ctx *sql.Context) bool { return ctx.Pid()&directPidBit != 0 }

// beginDirect starts the statement query of s as the engine's handler
// starts one: a context of the session with a process id of its own, the
// engine's memory manager and process list, the session's command begun,
// the statement in the process list, the session validated. It returns
// the context and what ends the statement, or false (having done nothing
// that lasts) when the engine's handler should run it.
func (e *Embedded) beginDirect(ctx context.Context, s *Session, query string) (*sql.Context, func(), bool) {
	sctx := sql.NewContext(ctx, sql.WithSession(s), sql.WithPid(directPidBit|e.fast.pids.Add(1)), sql.WithQuery(query),
		sql.WithMemoryManager(e.Engine.MemoryManager), sql.WithProcessList(e.Engine.ProcessList))
	if err := sql.SessionCommandBegin(s); err != nil {
		return nil, nil, false
	}
	pl := e.Engine.ProcessList
	qctx, err := pl.BeginQuery(sctx, query)
	if err != nil {
		sql.SessionCommandEnd(s)
		return nil, nil, false
	}
	end := func() {
		pl.EndQuery(qctx)
		sql.SessionCommandEnd(s)
	}
	if err := s.ValidateSession(qctx); err != nil {
		end()
		return nil, nil, false
	}
	return qctx, end, true
}

// directTransaction begins the session's transaction if it has none, as
// the engine does before it binds a statement; false if it cannot.
func directTransaction(ctx *sql.Context, s *Session) bool {
	if ctx.GetTransaction() != nil {
		return true
	}
	tx, err := s.StartTransaction(ctx, sql.ReadWrite)
	if err != nil {
		return false
	}
	ctx.SetTransaction(tx)
	return true
}

// ExecPrepared runs the execution of the prepared statement query, with
// the values binds, of session s itself and gives its result to callback
// (which must not keep the rows' values past its return), when the
// statement is a fast-path one (fastpath.go) and the execution can take
// the fast path. It reports whether it ran the execution: when not, the
// caller runs it through the engine's handler. ctx is the command's
// context.
func (e *Embedded) ExecPrepared(ctx context.Context, s *Session, query string, binds map[string]*querypb.BindVariable, callback func(*sqltypes.Result) error) (handled bool, err error) {
	f := e.fast
	if f == nil || s.fast != f {
		return false, nil
	}
	t := f.template(query)
	if t == nil {
		return false, nil
	}
	values := make([]sql.Expression, 1, 2)
	var ok bool
	if values[0], ok = intBinding(binds[t.lo]); !ok {
		return false, nil
	}
	if t.rng {
		hi, ok := intBinding(binds[t.hi])
		if !ok {
			return false, nil
		}
		values = append(values, hi)
	}
	orig, prepared := s.BaseSession.GetPreparedQuery(query)
	if !prepared {
		return false, nil
	}

	sctx, end, ok := e.beginDirect(ctx, s, query)
	if !ok {
		return false, nil
	}
	defer end()
	auth := e.Engine.Analyzer.Catalog.AuthorizationHandler()
	if err := auth.HandleAuth(sctx, auth.NewQueryState(sctx), t.auth); err != nil {
		return false, nil // the engine's bind refuses it with its own error
	}
	if !directTransaction(sctx, s) {
		return false, nil
	}
	n := &fastSelect{f: f, t: t, query: query, orig: orig, values: values}
	if err := n.prepare(sctx); err != nil || n.read == nil {
		return false, nil
	}

	// From here on the execution is this one's.
	sql.IncrementStatusVariable(sctx, "Questions", 1)
	sql.IncrementStatusVariable(sctx, "Com_select", 1)
	sctx.ClearWarnings()
	iter, err := n.rows(sctx)
	if err != nil {
		return true, endDirect(sctx, s, err)
	}
	f.hits.Add(1)
	f.direct.Add(1)
	sch := n.read.sch
	res := &sqltypes.Result{Fields: n.read.fields(sctx)}
	buf := sql.ByteBufPool.Get().(*sql.ByteBuffer)
	defer func() {
		buf.Reset()
		sql.ByteBufPool.Put(buf)
	}()
	var found int64
	var slab rowSlab[sqltypes.Value]
	for {
		row, err := iter.Next(sctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			iter.Close(sctx)
			return true, endDirect(sctx, s, err)
		}
		out := slab.row(len(sch))
		for i, c := range sch {
			if row[i] == nil {
				out[i] = sqltypes.NULL
				continue
			}
			v, err := c.Type.SQL(sctx, buf.Get(), row[i])
			if err != nil {
				iter.Close(sctx)
				return true, endDirect(sctx, s, err)
			}
			buf.Grow(v.Len())
			out[i] = v
		}
		res.Rows = append(res.Rows, out)
		found++
	}
	res.RowsAffected = uint64(found)
	if err := iter.Close(sctx); err != nil {
		return true, endDirect(sctx, s, err)
	}
	if err := endSelect(sctx, s, found); err != nil {
		return true, err
	}
	return true, callback(res)
}

// endSelect ends a select that returned found rows as the engine ends
// one: its transaction as endDirect ends it, then ROW_COUNT() -1 and
// FOUND_ROWS() the rows, as the engine's process tracking sets them.
func endSelect(ctx *sql.Context, s *Session, found int64) error {
	if err := endDirect(ctx, s, nil); err != nil {
		return err
	}
	info := ctx.GetLastQueryInfo()
	info.RowCount.Store(-1)
	info.FoundRows.Store(found)
	return nil
}

// endDirect ends a direct execution's statement as the engine does: under
// autocommit, outside an explicit transaction, its transaction commits
// (or, when the statement failed, is let go, as the engine lets it go).
// It returns the statement's error, or the commit's.
func endDirect(ctx *sql.Context, s *Session, stmtErr error) error {
	tx := ctx.GetTransaction()
	if tx == nil || ctx.GetIgnoreAutoCommit() {
		return stmtErr
	}
	autocommit, err := plan.IsSessionAutocommit(ctx)
	if err != nil {
		return errors.Join(stmtErr, err)
	}
	if !autocommit {
		return stmtErr
	}
	if stmtErr == nil {
		if err := s.CommitTransaction(ctx, tx); err != nil {
			return err
		}
	}
	ctx.SetTransaction(nil)
	return stmtErr
}

// intBinding returns an integer literal for a value of a prepared
// statement's execution that the key column compares with as with that
// integer, or false for any other value (strings, decimals, NULL, a
// missing one, fractions), which the engine binds itself. A floating-point
// value counts when it is a whole number of at most 2^53 either way (Node's
// mysql2 sends every number as a DOUBLE): a column compared with a double
// is compared as a double, which tells apart every integer up to there.
func intBinding(bv *querypb.BindVariable) (sql.Expression, bool) {
	if bv == nil {
		return nil, false
	}
	v, err := sqltypes.BindVariableToValue(bv)
	if err != nil {
		return nil, false
	}
	if v.IsFloat() {
		x, err := strconv.ParseFloat(v.ToString(), 64)
		if err != nil || x != math.Trunc(x) || math.Abs(x) > 1<<53 {
			return nil, false
		}
		return expression.NewLiteral(int64(x), types.Int64), true
	}
	if !v.IsIntegral() {
		return nil, false
	}
	raw := v.ToString()
	if i, err := strconv.ParseInt(raw, 10, 64); err == nil {
		return expression.NewLiteral(i, types.Int64), true
	}
	if u, err := strconv.ParseUint(raw, 10, 64); err == nil {
		return expression.NewLiteral(u, types.Uint64), true
	}
	return nil, false
}

// ResultFields returns the protocol's descriptions of the result columns
// sch, as the engine's handler describes them (it keeps its own
// unexported): the column's character set, or
// character_set_results when set, binary for binary types; NOT NULL,
// AUTO_INCREMENT, PRI_KEY and UNSIGNED flags; decimals of DECIMAL and
// time types.
func ResultFields(ctx *sql.Context, sch sql.Schema) []*querypb.Field {
	results := ctx.GetCharacterSetResults()
	fields := make([]*querypb.Field, len(sch))
	for i, c := range sch {
		charset := uint32(sql.Collation_Default.CharacterSet())
		if ct, ok := c.Type.(sql.TypeWithCollation); ok {
			charset = uint32(ct.Collation().CharacterSet())
		}
		if types.IsBinaryType(c.Type) {
			charset = uint32(sql.Collation_binary)
		} else if results != sql.CharacterSet_Unspecified {
			charset = uint32(results)
		}
		var flags querypb.MySqlFlag
		if !c.Nullable {
			flags |= querypb.MySqlFlag_NOT_NULL_FLAG
		}
		if c.AutoIncrement {
			flags |= querypb.MySqlFlag_AUTO_INCREMENT_FLAG
		}
		if c.PrimaryKey {
			flags |= querypb.MySqlFlag_PRI_KEY_FLAG
		}
		if types.IsUnsigned(c.Type) {
			flags |= querypb.MySqlFlag_UNSIGNED_FLAG
		}
		fields[i] = &querypb.Field{
			Name:         c.Name,
			OrgName:      c.Name,
			Table:        c.Source,
			OrgTable:     c.Source,
			Database:     c.DatabaseSource,
			Type:         c.Type.Type(),
			Charset:      charset,
			ColumnLength: c.Type.MaxTextResponseByteLength(ctx),
			Flags:        uint32(flags),
		}
		if dt, ok := c.Type.(sql.DecimalType); ok && types.IsDecimal(c.Type) {
			fields[i].Decimals = uint32(dt.Scale())
		} else if tt, ok := c.Type.(sql.DatetimeType); ok && types.IsDatetimeType(c.Type) {
			fields[i].Decimals = uint32(tt.Precision())
		}
	}
	return fields
}

// ExecTxnStatement runs the text query of session s itself when it is
// exactly BEGIN, START TRANSACTION or COMMIT (any case, surrounding
// spaces and a final ';' aside: no options, no comment), as the engine's
// handler and its transaction statements run them: a transaction the
// session has open is committed first (BEGIN commits any pending work),
// the new one ignores autocommit until it ends; COMMIT commits the
// session's transaction, if any, and leaves autocommit to decide again.
// The statement counts in Questions, clears the warnings, sets
// ROW_COUNT() to -1 and FOUND_ROWS() to 0 (as the engine does) and answers with an OK packet. It reports whether it
// ran the query.
func (e *Embedded) ExecTxnStatement(ctx context.Context, s *Session, query string, callback func(*sqltypes.Result, bool) error) (handled bool, err error) {
	if e.fast == nil || s.fast != e.fast || len(query) > 32 {
		return false, nil
	}
	var begin bool
	switch q := sql.RemoveSpaceAndDelimiter(query, ';'); {
	case strings.EqualFold(q, "begin"), strings.EqualFold(q, "start transaction"):
		begin = true
	case strings.EqualFold(q, "commit"):
	default:
		return false, nil
	}
	sctx, end, ok := e.beginDirect(ctx, s, query)
	if !ok {
		return false, nil
	}
	defer end()

	// From here on the statement is this one's.
	e.fast.txns.Add(1)
	sql.IncrementStatusVariable(sctx, "Questions", 1)
	sctx.ClearWarnings()
	if tx := sctx.GetTransaction(); tx != nil {
		if err := s.CommitTransaction(sctx, tx); err != nil {
			return true, err
		}
	}
	if begin {
		tx, err := s.StartTransaction(sctx, sql.ReadWrite)
		if err != nil {
			return true, err
		}
		sctx.SetTransaction(tx)
		sctx.SetIgnoreAutoCommit(true)
	} else {
		sctx.SetIgnoreAutoCommit(false)
		sctx.SetTransaction(nil)
	}
	// The engine's process tracking counts both as a select (it finds no
	// row-less node in their plans): ROW_COUNT() -1, FOUND_ROWS() the
	// rows they returned, none.
	info := sctx.GetLastQueryInfo()
	info.RowCount.Store(-1)
	info.FoundRows.Store(0)
	return true, callback(&sqltypes.Result{}, false)
}
