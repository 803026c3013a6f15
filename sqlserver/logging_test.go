package sqlserver

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/sirupsen/logrus"
	"github.com/verso-db/verso/internal/logtest"
)

// captureOutput runs f with os.Stdout and os.Stderr redirected to pipes,
// and logrus's standard logger writing to that stderr at its most verbose
// (a host program that logs everything: the standard logger's output is
// the stderr of when it was made, so it must be pointed at the pipe), and
// returns what was written.
func captureOutput(t *testing.T, f func()) string {
	t.Helper()
	var (
		mu  sync.Mutex
		out bytes.Buffer
		wg  sync.WaitGroup
	)
	pipe := func() (*os.File, *os.File) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, _ := io.ReadAll(r)
			r.Close()
			mu.Lock()
			out.Write(b)
			mu.Unlock()
		}()
		return r, w
	}
	_, stdout := pipe()
	_, stderr := pipe()
	oldOut, oldErr := os.Stdout, os.Stderr
	std := logrus.StandardLogger()
	oldStd, oldLevel := std.Out, std.GetLevel()
	os.Stdout, os.Stderr = stdout, stderr
	std.SetOutput(stderr)
	std.SetLevel(logrus.TraceLevel)
	func() {
		defer func() {
			os.Stdout, os.Stderr = oldOut, oldErr
			std.SetOutput(oldStd)
			std.SetLevel(oldLevel)
		}()
		f()
	}()
	stdout.Close()
	stderr.Close()
	wg.Wait()
	return out.String()
}

// engineStatements run through an embedded engine: they make the engine
// log through its sessions (transactions' trace lines), and the last one
// fails.
var engineStatements = []string{
	"CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))",
	"BEGIN",
	"INSERT INTO t VALUES (1, 'one')",
	"COMMIT",
	"SELECT * FROM t WHERE id = 1",
	"SELECT * FROM missing",
}

func runEngineStatements(t *testing.T, env *testEnv) {
	t.Helper()
	ctx := setupDB(env)
	for i, q := range engineStatements {
		_, err := env.query(ctx, q)
		if last := i == len(engineStatements)-1; (err != nil) != last {
			t.Fatalf("%s: error %v", q, err)
		}
	}
}

// TestEngineQuiet: an embedded engine writes nothing to stdout or
// stderr, even when the host program's logrus logs everything.
func TestEngineQuiet(t *testing.T) {
	out := captureOutput(t, func() {
		runEngineStatements(t, newMemoryEnv(t))
	})
	if out != "" {
		t.Errorf("an embedded engine wrote to stdout or stderr:\n%s", out)
	}
}

// TestEngineLogger: with Provider.SetLogger, what the engine logs for
// its sessions arrives there, at the slog level of its logrus level, with
// the session's database; and only from the logger's level up.
func TestEngineLogger(t *testing.T) {
	var recs logtest.Records
	recs.Level = LevelTrace
	p := NewMemoryProvider()
	p.SetLogger(slog.New(&recs))
	out := captureOutput(t, func() {
		runEngineStatements(t, newEnv(t, p))
	})
	if out != "" {
		t.Errorf("an embedded engine with a logger wrote to stdout or stderr:\n%s", out)
	}
	begun := recs.Find("beginning new transaction")
	if len(begun) == 0 {
		t.Fatalf("no engine trace line reached the logger:\n%s", &recs)
	}
	if r := begun[len(begun)-1]; r.Level != LevelTrace || r.Attrs["db"] != "db" {
		t.Errorf("the engine's trace line arrived as %v %v; want level %v and db=db", r.Level, r.Attrs, LevelTrace)
	}

	info := logtest.Records{Level: slog.LevelInfo}
	p = NewMemoryProvider()
	p.SetLogger(slog.New(&info))
	runEngineStatements(t, newEnv(t, p))
	if s := info.String(); s != "" {
		t.Errorf("a logger at Info got the engine's lines of a healthy run:\n%s", s)
	}
	if lv := p.log.get().lr.GetLevel(); lv != logrus.InfoLevel {
		t.Errorf("the sessions' logrus level is %v under a logger at Info; want info (so the engine skips formatting trace lines)", lv)
	}
}

// TestLogrusLevels: logrus entries arrive at the matching slog level, or
// that of the demoted table, with their fields (the connection's as
// conn, an error as its message) and without the engine's time fields.
func TestLogrusLevels(t *testing.T) {
	recs := logtest.Records{Level: LevelTrace}
	lr := logrusToSlog(slog.New(&recs))
	e := lr.WithField(sql.ConnectionIdLogField, uint32(7)).WithField(sql.QueryTimeLogKey, "a time")
	e.Trace("t")
	e.Debug("d")
	e.Info("i")
	e.Warn("w")
	e.WithError(fmt.Errorf("boom")).Error("e")
	e.Info("NewConnection")
	e.Error("unable to prepare query: syntax error")
	e.Warn("error running query")
	for _, tc := range []struct {
		msg   string
		level slog.Level
	}{
		{"t", LevelTrace}, {"d", slog.LevelDebug}, {"i", slog.LevelInfo}, {"w", slog.LevelWarn}, {"e", slog.LevelError},
		{"NewConnection", LevelTrace},
		{"unable to prepare query: syntax error", slog.LevelDebug},
		{"error running query", LevelTrace},
	} {
		got := recs.Find(tc.msg)
		if len(got) != 1 || got[0].Level != tc.level || got[0].Attrs["conn"] != "7" {
			t.Errorf("%q: got %+v; want one record at %v with conn=7", tc.msg, got, tc.level)
			continue
		}
		if _, ok := got[0].Attrs[sql.QueryTimeLogKey]; ok {
			t.Errorf("%q kept the engine's time field: %v", tc.msg, got[0].Attrs)
		}
	}
	if got := recs.Find("e"); len(got) == 1 && got[0].Attrs["error"] != "boom" {
		t.Errorf("an entry's error arrived as %v; want error=boom", got[0].Attrs)
	}

	// Without a logger nothing is formatted: the level stops all but
	// panics.
	if lv := logrusToSlog(slog.New(slog.DiscardHandler)).GetLevel(); lv != logrus.PanicLevel {
		t.Errorf("the logrus level of a discarding logger is %v; want panic", lv)
	}
}

// TestForwardLogrus: a logrus logger routed into slog writes nothing
// itself, and restore gives it back its output.
func TestForwardLogrus(t *testing.T) {
	var buf bytes.Buffer
	lr := logrus.New()
	lr.SetOutput(&buf)
	recs := logtest.Records{Level: slog.LevelInfo}
	restore := ForwardLogrus(lr, slog.New(&recs))
	lr.Info("routed")
	lr.Info("ConnectionClosed")
	restore()
	lr.Info("after")
	if got := recs.Find("routed"); len(got) != 1 || got[0].Level != slog.LevelInfo {
		t.Errorf("routed: %+v", got)
	}
	if len(recs.Find("ConnectionClosed")) != 0 || len(recs.Find("after")) != 0 {
		t.Errorf("the logger got a demoted line or one after restore:\n%s", &recs)
	}
	if s := buf.String(); strings.Contains(s, "routed") || !strings.Contains(s, "after") {
		t.Errorf("the logrus output: %q; want only the line after restore", s)
	}
}
