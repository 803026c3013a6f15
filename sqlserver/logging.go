package sqlserver

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/sirupsen/logrus"
)

// The server's log.
//
// The package logs only through a *slog.Logger it is given: the
// provider's (Provider.SetLogger), or the one the wire server (package
// server) gives its sessions. Without one it is quiet.
//
// The engine (go-mysql-server) and its protocol library (vitess) log
// through logrus, in two ways:
//
//   - through a session's logger (ctx.GetLogger(): the start and end of
//     each statement, a failed one, trace lines of transactions). Every
//     session of a Provider gets a logrus logger of the provider's or the
//     server's own that writes nothing and forwards each entry to the
//     slog logger (logrusToSlog), so these follow the Logger given;
//   - through logrus's package-level functions, that is its standard
//     logger: the engine's connection lines ("NewConnection",
//     "ConnectionClosed"), "Server ready", the protocol library's
//     handshake errors, and a few errors of planning (an invalid DECIMAL
//     in a CAST). That logger belongs to the program: the package never
//     changes it. A program routes it into its own log with
//     ForwardLogrus(logrus.StandardLogger(), logger), as cmd/verso does,
//     or silences it with logrus.SetOutput(io.Discard).
//
// Levels: the server (package server) logs connections (opened, logged
// in, aborted, closed) and each statement with its duration and error at
// Debug, statements stopped by the memory limit and damaged databases at
// Warn, and internal errors (a panic's stack trace, which the client does
// not see: scrub.go) at Error. Engine lines keep their logrus level (Trace is
// LevelTrace), except the ones listed in demoted: lines of one client's
// connection or statement go to Debug, and those that repeat the server's
// own lines to LevelTrace.

// LevelTrace is the slog level of the engine's trace lines (logrus's
// Trace level), below slog.LevelDebug.
const LevelTrace = slog.LevelDebug - 4

// sessionLog is the logger a provider gives its sessions.
type sessionLog struct {
	p atomic.Pointer[sessionLogger]
}

// sessionLogger is a slog logger and the logrus logger forwarding to it.
type sessionLogger struct {
	slog *slog.Logger
	lr   *logrus.Logger
}

func newSessionLogger(l *slog.Logger) *sessionLogger {
	if l == nil {
		l = slog.New(slog.DiscardHandler)
	}
	return &sessionLogger{slog: l, lr: logrusToSlog(l)}
}

func (s *sessionLog) set(l *slog.Logger) { s.p.Store(newSessionLogger(l)) }

func (s *sessionLog) get() *sessionLogger {
	if l := s.p.Load(); l != nil {
		return l
	}
	s.p.CompareAndSwap(nil, newSessionLogger(nil))
	return s.p.Load()
}

// SetLogger makes l the log of p's sessions: what the engine logs while
// running their statements (mostly at Debug and LevelTrace). Nil, the
// default, discards it. Sessions made before keep their logger. A
// server's sessions log to the server's logger (package server's
// Config.Logger), if it is set.
func (p *Provider) SetLogger(l *slog.Logger) {
	p.log.set(l)
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, st := range p.dbs {
		if !st.borrowed {
			st.db.SetLogger(l)
		}
	}
}

// Logger returns the log of p's sessions (SetLogger; by default one that
// discards everything). The wire server logs to it when it is given no
// logger of its own.
func (p *Provider) Logger() *slog.Logger { return p.log.get().slog }

// sessionEntry returns the logrus entry a new session of p logs to.
func (p *Provider) sessionEntry() *logrus.Entry { return logrus.NewEntry(p.log.get().lr) }

// logrusToSlog returns a logrus logger that writes nothing itself and
// forwards every entry to l (see slogHook). Its level is the most verbose
// one l is enabled for when it is made, so the engine does not format
// lines l would drop.
func logrusToSlog(l *slog.Logger) *logrus.Logger {
	lr := logrus.New()
	lr.SetOutput(io.Discard)
	lr.SetFormatter(noFormat{})
	lr.SetLevel(logrusLevel(l))
	if lr.GetLevel() > logrus.PanicLevel {
		lr.AddHook(slogHook{l})
	}
	return lr
}

// ForwardLogrus makes lr, a logrus logger, forward its entries to l
// (with the levels of the package's own lines: see LevelTrace and
// "The server's log" in logging.go) instead of writing them, and returns
// a function that restores lr's output, formatter, level and hooks.
//
// The engine and its protocol library log some lines through logrus's
// standard logger, which the package never changes: a program calls
// ForwardLogrus(logrus.StandardLogger(), logger) to have them in its log.
func ForwardLogrus(lr *logrus.Logger, l *slog.Logger) (restore func()) {
	out, format, level := lr.Out, lr.Formatter, lr.GetLevel()
	hooks := lr.ReplaceHooks(logrus.LevelHooks{})
	lr.SetOutput(io.Discard)
	lr.SetFormatter(noFormat{})
	lr.SetLevel(logrusLevel(l))
	lr.AddHook(slogHook{l})
	return func() {
		lr.ReplaceHooks(hooks)
		lr.SetLevel(level)
		lr.SetFormatter(format)
		lr.SetOutput(out)
	}
}

// noFormat is the formatter of a forwarding logrus logger: its hook has
// written the entry already.
type noFormat struct{}

func (noFormat) Format(*logrus.Entry) ([]byte, error) { return nil, nil }

// logrusLevel is the most verbose logrus level whose lines l logs.
func logrusLevel(l *slog.Logger) logrus.Level {
	for _, lv := range []logrus.Level{logrus.TraceLevel, logrus.DebugLevel, logrus.InfoLevel, logrus.WarnLevel, logrus.ErrorLevel} {
		if l.Enabled(context.Background(), slogLevel(lv)) {
			return lv
		}
	}
	return logrus.PanicLevel
}

// slogLevel maps a logrus level to slog's.
func slogLevel(lv logrus.Level) slog.Level {
	switch lv {
	case logrus.TraceLevel:
		return LevelTrace
	case logrus.DebugLevel:
		return slog.LevelDebug
	case logrus.InfoLevel:
		return slog.LevelInfo
	case logrus.WarnLevel:
		return slog.LevelWarn
	default: // Error, Fatal, Panic
		return slog.LevelError
	}
}

// demoted lists engine and protocol-library lines, by the beginning of
// their message, whose level in the server's log is not their logrus one.
var demoted = []struct {
	prefix string
	level  slog.Level
}{
	// The server logs these itself (package server's handler.go), with
	// more detail.
	{"NewConnection", LevelTrace},
	{"ConnectionClosed", LevelTrace},
	{"Starting query", LevelTrace},
	{"Query finished in ", LevelTrace},
	{"error running query", LevelTrace},
	{"preparing query", LevelTrace},
	// Handshakes that failed: the server logs "connection aborted" with
	// the reason (vitess's handleConnectionError and
	// handleConnectionWarning).
	{"Cannot send HandshakeV10 packet", LevelTrace},
	{"Cannot read client handshake response", LevelTrace},
	{"Cannot parse client handshake response", LevelTrace},
	{"Cannot read post-SSL client handshake response", LevelTrace},
	{"Cannot parse post-SSL client handshake response", LevelTrace},
	{"No authentication methods available", LevelTrace},
	{"Cannot use clear text authentication", LevelTrace},
	{"Error generating auth switch packet", LevelTrace},
	{"Error writing auth switch packet", LevelTrace},
	{"Error reading auth switch response", LevelTrace},
	{"Unable to copy client auth response", LevelTrace},
	{"Error authenticating user", LevelTrace},
	// The program logs its own start and stop.
	{"Server ready. Accepting connections.", slog.LevelDebug},
	{"Server closing listener.", slog.LevelDebug},
	// One client's statement failed, or its connection went away: the
	// client has the error; the server is fine.
	{"unable to prepare query", slog.LevelDebug},
	{"Error while parsing prepared statement", slog.LevelDebug},
	{"unable to process ComInitDB", slog.LevelDebug},
	{"failed to set the database", slog.LevelDebug},
	{"kill query: pid", slog.LevelDebug},
	{"canceling context: connID", slog.LevelDebug},
	{"Error reading packet from", slog.LevelDebug},
	{"Error writing", slog.LevelDebug},
	{"Cannot write OK packet", slog.LevelDebug},
	// Planning a client's CAST to an invalid DECIMAL (the statement
	// goes on with the engine's widest decimal).
	{"unable to create decimal type", slog.LevelDebug},
}

// entryLevel is the slog level of a logrus entry.
func entryLevel(e *logrus.Entry) slog.Level {
	for _, d := range demoted {
		if strings.HasPrefix(e.Message, d.prefix) {
			return d.level
		}
	}
	return slogLevel(e.Level)
}

// slogHook forwards logrus entries to a slog logger.
type slogHook struct{ l *slog.Logger }

func (slogHook) Levels() []logrus.Level { return logrus.AllLevels }

// Fire writes e to the slog logger: its time, level (entryLevel),
// message and fields, in order of name. The engine's time fields (of the
// connection and of the query) are left out, and its connection and
// database fields are "conn" and "db" as in the server's own lines.
func (h slogHook) Fire(e *logrus.Entry) error {
	ctx := e.Context
	if ctx == nil {
		ctx = context.Background()
	}
	lv := entryLevel(e)
	if !h.l.Enabled(ctx, lv) {
		return nil
	}
	r := slog.NewRecord(e.Time, lv, strings.TrimRight(e.Message, "\n"), 0)
	keys := make([]string, 0, len(e.Data))
	for k := range e.Data {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := e.Data[k]
		switch k {
		case sql.ConnectTimeLogKey, sql.QueryTimeLogKey:
			continue
		case sql.ConnectionIdLogField:
			k = "conn"
		case sql.ConnectionDbLogField:
			k = "db"
		}
		if err, ok := v.(error); ok {
			v = err.Error()
		}
		r.AddAttrs(slog.Any(k, v))
	}
	return h.l.Handler().Handle(ctx, r)
}
