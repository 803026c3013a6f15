package server

import (
	"bytes"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	gsql "github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/verso-db/verso/sqlserver"
)

// logBuffer is a server log that tests read.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// testFunc is a scalar function for these tests only.
type testFunc struct {
	name string
	args []gsql.Expression
	eval func(ctx *gsql.Context, args []any) (any, error)
}

func (f *testFunc) Resolved() bool                { return true }
func (f *testFunc) String() string                { return f.name + "()" }
func (f *testFunc) Type(*gsql.Context) gsql.Type  { return types.LongText }
func (f *testFunc) IsNullable(*gsql.Context) bool { return true }
func (f *testFunc) Children() []gsql.Expression   { return f.args }
func (f *testFunc) FunctionName() string          { return f.name }
func (f *testFunc) Description() string           { return "a test function" }
func (f *testFunc) IsNonDeterministic() bool      { return true }
func (f *testFunc) WithChildren(_ *gsql.Context, c ...gsql.Expression) (gsql.Expression, error) {
	nf := *f
	nf.args = c
	return &nf, nil
}
func (f *testFunc) Eval(ctx *gsql.Context, row gsql.Row) (any, error) {
	vals := make([]any, len(f.args))
	for i, a := range f.args {
		v, err := a.Eval(ctx, row)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	return f.eval(ctx, vals)
}

// serverPath is an absolute path of the server's that an error names.
var serverPath = filepath.Join(os.TempDir(), "verso-test", "shop", ".verso", "chunks", "journal")

// testFuncs are functions that fail in the ways the test needs.
func testFuncs() []gsql.Function {
	var out []gsql.Function
	for _, f := range []*testFunc{
		{name: "verso_test_panic", eval: func(*gsql.Context, []any) (any, error) {
			var s []int
			return s[5], nil // a runtime error: index out of range
		}},
		{name: "verso_test_path_error", eval: func(_ *gsql.Context, args []any) (any, error) {
			p := serverPath
			if len(args) > 0 {
				p = fmt.Sprint(args[0])
			}
			return nil, fmt.Errorf("open %s: permission denied", p)
		}},
	} {
		out = append(out, gsql.FunctionN{Name: f.name, Fn: func(_ *gsql.Context, args ...gsql.Expression) (gsql.Expression, error) {
			nf := *f
			nf.args = args
			return &nf, nil
		}})
	}
	return append(out, gsql.Function0{Name: "verso_test_plan_panic", Fn: func(*gsql.Context) gsql.Expression {
		panic(fmt.Sprintf("a broken invariant while planning, in %s", serverPath))
	}})
}

// TestServerErrorsHideInternals: errors reach clients without stack
// traces or absolute server paths; the trace goes to the server log.
func TestServerErrorsHideInternals(t *testing.T) {
	var log logBuffer
	s, _ := startTestServerWith(t, t.TempDir(), Config{Logger: slog.New(slog.NewTextHandler(&log, nil))}, func(s *Server) {
		// The engine's own functions, which come after the provider's.
		s.Engine.Analyzer.Catalog.RegisterFunction(gsql.NewEmptyContext(), testFuncs()...)
	})
	db := connect(t, s, "root", "", "")
	db.SetMaxOpenConns(1)
	for _, tc := range []struct {
		query string
		msg   string // a part of the message the client gets
	}{
		{"SELECT verso_test_panic()", "internal error in the server: runtime error: index out of range [5] with length 0; the server log has the details"},
		{"SELECT verso_test_plan_panic()", "internal error in the server: a broken invariant while planning"},
		{"SELECT verso_test_path_error()", "open .../journal: permission denied"},
		// A path the client wrote is its own.
		{"SELECT verso_test_path_error('/home/me/data.csv')", "open /home/me/data.csv: permission denied"},
	} {
		var v any
		err := db.QueryRow(tc.query).Scan(&v)
		if err == nil {
			t.Fatalf("%s: no error", tc.query)
		}
		msg := err.Error()
		num, _ := mysqlErrNum(err)
		if num != 1105 || !strings.Contains(msg, tc.msg) {
			t.Errorf("%s: got %q (%d), want 1105 containing %q", tc.query, msg, num, tc.msg)
		}
		for _, bad := range []string{"goroutine ", "runtime/debug", ".go:", "panic recovered", os.TempDir() + "/", "/root/", "/pkg/mod/"} {
			if strings.Contains(msg, bad) && !strings.Contains(tc.query, bad) {
				t.Errorf("%s: the client's error %q shows %q", tc.query, msg, bad)
			}
		}
		if err := db.QueryRow("SELECT 1").Scan(&v); err != nil {
			t.Fatalf("after %s the connection does not work: %v", tc.query, err)
		}
	}
	if l := log.String(); !strings.Contains(l, "goroutine ") || !strings.Contains(l, "index out of range") || !strings.Contains(l, "a broken invariant while planning") {
		t.Errorf("the server log lacks the panics and their stack traces:\n%s", l)
	}
	// The query of the issue: a huge REPEAT is NULL with a warning (see
	// TestServerMaxAllowedPacket), not a panic.
	var n sql.NullInt64
	if err := db.QueryRow("SELECT LENGTH(REPEAT('a', 4294967296))").Scan(&n); err != nil || n.Valid {
		t.Errorf("SELECT LENGTH(REPEAT('a', 4294967296)): %v, %v; want NULL", n, err)
	}
}

// TestMySQLErrorScrubs checks the filter on its own: a message with a Go
// stack trace or absolute paths the query did not name.
func TestMySQLErrorScrubs(t *testing.T) {
	trace := "panic recovered: runtime error: slice bounds out of range [:2147483647] with length 2147483640\ngoroutine 1328 [running]:\nruntime/debug.Stack()\n\t/usr/local/go/src/runtime/debug/stack.go:26 +0x5e\n"
	got := sqlserver.MySQLError(fmt.Errorf("%s", trace), "SELECT 1")
	if got.Num != 1105 || got.Message != "internal error in the server: runtime error: slice bounds out of range [:2147483647] with length 2147483640; the server log has the details" {
		t.Errorf("trace: got %d %q", got.Num, got.Message)
	}
	got = sqlserver.MySQLError(fmt.Errorf("reading /var/lib/verso/shop/.verso/chunks/manifest: checksum mismatch"), "SELECT * FROM t")
	if got.Message != "reading .../manifest: checksum mismatch" {
		t.Errorf("path: got %q", got.Message)
	}
	for _, keep := range []string{"division 1/2", "near 'a/b/c'", "db/feature not found"} {
		if got := sqlserver.MySQLError(fmt.Errorf("%s", keep), "SELECT 1"); got.Message != keep {
			t.Errorf("%q became %q", keep, got.Message)
		}
	}
}
