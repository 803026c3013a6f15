package sqlserver

import (
	"context"
	"fmt"
	"strings"
	"testing"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// testEnv is an engine over a provider, with helpers to run SQL.
type testEnv struct {
	t testing.TB
	p *Provider
	e *sqle.Engine
}

func newMemoryEnv(t *testing.T) *testEnv {
	t.Helper()
	return newEnv(t, NewMemoryProvider())
}

func newEnv(t testing.TB, p *Provider) *testEnv {
	t.Helper()
	env := &testEnv{t: t, p: p, e: NewEngine(p)}
	t.Cleanup(func() { env.e.Close() })
	return env
}

// session returns a context on a new session, using database db if not "".
func (env *testEnv) session(db string) *sql.Context {
	ctx := sql.NewContext(context.Background(), sql.WithSession(env.p.NewSession(sql.NewBaseSession())))
	if db != "" {
		ctx.SetCurrentDatabase(db)
	}
	return ctx
}

// query runs q and returns its rows, or the error.
func (env *testEnv) query(ctx *sql.Context, q string) ([]sql.Row, error) {
	// The query's text rides on its context, as the server and the
	// driver give it (an autocommitted write's rows go to its commit as
	// pending edits only when the text says what it is: endStatement).
	ctx = ctx.WithQuery(q)
	_, iter, _, err := env.e.Query(ctx, q)
	if err != nil {
		return nil, err
	}
	return sql.RowIterToRows(ctx, iter)
}

// exec runs q and fails the test on an error.
func (env *testEnv) exec(ctx *sql.Context, q string) []sql.Row {
	env.t.Helper()
	rows, err := env.query(ctx, q)
	if err != nil {
		env.t.Fatalf("%s: %.300v", short(q), err)
	}
	return rows
}

// short returns q cut to a length fit for a message.
func short(q string) string {
	if len(q) > 200 {
		return q[:200] + "..."
	}
	return q
}

// check runs q and compares its rows, printed, with want.
func (env *testEnv) check(ctx *sql.Context, q string, want string) {
	env.t.Helper()
	got := formatRows(env.exec(ctx, q))
	if got != want {
		env.t.Fatalf("%s:\n got %s\nwant %s", q, got, want)
	}
}

// formatRows prints rows as [a b] [c d].
func formatRows(rows []sql.Row) string {
	var b strings.Builder
	for i, r := range rows {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteByte('[')
		for j, v := range r {
			if j > 0 {
				b.WriteByte(' ')
			}
			switch x := v.(type) {
			case nil:
				b.WriteString("NULL")
			case types.OkResult:
				fmt.Fprintf(&b, "ok:%d", x.RowsAffected)
			case []byte:
				b.Write(x)
			default:
				fmt.Fprint(&b, x)
			}
		}
		b.WriteByte(']')
	}
	return b.String()
}

func setupDB(env *testEnv) *sql.Context {
	ctx := env.session("")
	env.exec(ctx, "CREATE DATABASE db")
	ctx.SetCurrentDatabase("db")
	return ctx
}

func TestCreateInsertSelect(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, `CREATE TABLE t (
		id INT PRIMARY KEY AUTO_INCREMENT,
		name VARCHAR(20) NOT NULL DEFAULT 'none',
		n INT,
		UNIQUE KEY uname (name),
		KEY kn (n))`)
	env.check(ctx, "INSERT INTO t (name, n) VALUES ('a', 1), ('b', 2), ('c', 2)", "[ok:3]")
	env.check(ctx, "SELECT * FROM t ORDER BY id", "[1 a 1] [2 b 2] [3 c 2]")
	env.check(ctx, "INSERT INTO t (n) VALUES (7)", "[ok:1]")
	env.check(ctx, "SELECT id, name FROM t WHERE n = 7", "[4 none]")
	env.check(ctx, "SELECT id FROM t WHERE id = 2", "[2]")
	env.check(ctx, "SELECT id FROM t WHERE id > 1 AND id < 4 ORDER BY id", "[2] [3]")
	env.check(ctx, "SELECT id FROM t WHERE n = 2 ORDER BY id", "[2] [3]")
	env.check(ctx, "SELECT id FROM t WHERE name = 'c'", "[3]")
	env.check(ctx, "SELECT count(*) FROM t", "[4]")
}
