// Package logtest is a slog.Handler that keeps the records it is given,
// for tests that check what a package logs (sqlserver's engine lines,
// the server's connection and statement lines).
//
// # Caveats
//
//   - WithAttrs and WithGroup panic: the packages it tests log with
//     attributes on each record, never on a derived logger.
//   - Records keeps every record in memory until the test ends.
package logtest

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
)

// Records is a slog.Handler that keeps what it is given, from Level on.
// It is safe for concurrent use.
type Records struct {
	Level slog.Level
	mu    sync.Mutex
	recs  []Record
}

// Record is a log record kept by Records: its level, message and
// attributes printed as key=value.
type Record struct {
	Level slog.Level
	Msg   string
	Attrs map[string]string
}

var _ slog.Handler = (*Records)(nil)

// Enabled implements slog.Handler.
func (r *Records) Enabled(_ context.Context, l slog.Level) bool { return l >= r.Level }

// Handle implements slog.Handler.
func (r *Records) Handle(_ context.Context, rec slog.Record) error {
	kept := Record{Level: rec.Level, Msg: rec.Message, Attrs: map[string]string{}}
	rec.Attrs(func(a slog.Attr) bool {
		kept.Attrs[a.Key] = a.Value.String()
		return true
	})
	r.mu.Lock()
	r.recs = append(r.recs, kept)
	r.mu.Unlock()
	return nil
}

// WithAttrs implements slog.Handler; it is not used by the packages
// tested, and panics.
func (r *Records) WithAttrs([]slog.Attr) slog.Handler {
	panic("logtest: WithAttrs is not used by the packages tested")
}

// WithGroup implements slog.Handler; it is not used by the packages
// tested, and panics.
func (r *Records) WithGroup(string) slog.Handler {
	panic("logtest: WithGroup is not used by the packages tested")
}

// Find returns the records whose message is msg.
func (r *Records) Find(msg string) []Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Record
	for _, rec := range r.recs {
		if rec.Msg == msg {
			out = append(out, rec)
		}
	}
	return out
}

// All returns a copy of every record kept, in order.
func (r *Records) All() []Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Record(nil), r.recs...)
}

// String prints the records, one a line.
func (r *Records) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for _, rec := range r.recs {
		fmt.Fprintf(&b, "%v %q %v\n", rec.Level, rec.Msg, rec.Attrs)
	}
	return b.String()
}
