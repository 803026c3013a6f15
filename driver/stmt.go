package driver

import (
	"context"
	"database/sql/driver"
)

// stmt is a prepared statement of a connection: parsed once by
// PrepareContext, each execution binds its arguments to the parsed
// statement (and a primary-key select of the fast path's shapes skips the
// engine's planning, as on the server).
type stmt struct {
	c      *conn
	query  string
	key    string // the session's name of the parsed statement
	n      int    // its placeholders
	closed bool
}

var (
	_ driver.Stmt              = (*stmt)(nil)
	_ driver.StmtExecContext   = (*stmt)(nil)
	_ driver.StmtQueryContext  = (*stmt)(nil)
	_ driver.NamedValueChecker = (*stmt)(nil)
)

// NumInput implements driver.Stmt: the statement's ? placeholders.
func (s *stmt) NumInput() int { return s.n }

// ExecContext implements driver.StmtExecContext.
func (s *stmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	r, err := s.start(ctx, args)
	if err != nil {
		return nil, err
	}
	affected, id, err := r.drain()
	if err != nil {
		return nil, err
	}
	return &result{affected: []int64{affected}, insertIDs: []int64{id}}, nil
}

// QueryContext implements driver.StmtQueryContext.
func (s *stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	r, err := s.start(ctx, args)
	if err != nil {
		return nil, err
	}
	return newRows(r)
}

// start runs the statement with args bound to its placeholders.
func (s *stmt) start(ctx context.Context, args []driver.NamedValue) (*running, error) {
	if s.closed {
		return nil, ErrClosed
	}
	b, err := bindings(args)
	if err != nil {
		return nil, err
	}
	return s.c.start(ctx, s.query, b, false)
}

// Exec implements driver.Stmt.
func (s *stmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.ExecContext(context.Background(), named(args))
}

// Query implements driver.Stmt.
func (s *stmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.QueryContext(context.Background(), named(args))
}

func named(args []driver.Value) []driver.NamedValue {
	out := make([]driver.NamedValue, len(args))
	for i, v := range args {
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	return out
}

// CheckNamedValue implements driver.NamedValueChecker.
func (s *stmt) CheckNamedValue(nv *driver.NamedValue) error { return checkValue(nv) }

// Close implements driver.Stmt.
func (s *stmt) Close() error {
	if !s.closed {
		s.closed = true
		if !s.c.closed {
			s.c.unprepare(s.key)
		}
	}
	return nil
}
