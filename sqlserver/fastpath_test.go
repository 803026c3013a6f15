package sqlserver

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// result is what one execution of a prepared statement gave.
type fastResult struct {
	sch  sql.Schema
	rows []sql.Row
	err  string
	max1 bool // the engine was told it returns at most one row
}

// runEngine executes the prepared statement q with bindings through the
// engine's planning, as the server does without the fast path.
func runEngine(env *testEnv, ctx *sql.Context, q string, bindings map[string]*querypb.BindVariable) fastResult {
	if _, err := env.e.PrepareQuery(ctx, q); err != nil {
		return fastResult{err: err.Error()}
	}
	return execEngine(env, ctx, q, bindings)
}

// execEngine executes the statement q, prepared already.
func execEngine(env *testEnv, ctx *sql.Context, q string, bindings map[string]*querypb.BindVariable) fastResult {
	exprs := map[string]sqlparser.Expr{}
	for k, bv := range bindings {
		v, err := sqltypes.BindVariableToValue(bv)
		if err != nil {
			env.t.Fatal(err)
		}
		if exprs[k], err = sqlparser.ExprFromValue(v); err != nil {
			env.t.Fatal(err)
		}
	}
	flags := &sql.QueryFlags{}
	sch, iter, flags, err := env.e.QueryWithBindings(ctx, q, nil, exprs, flags)
	r := collect(ctx, sch, iter, err)
	r.max1 = flags.IsSet(sql.QFlagMax1Row)
	return r
}

// runFast executes it as the server does with the fast path, and reports
// whether the fast path (not its fallback to planning) answered.
func runFast(env *testEnv, ctx *sql.Context, f *fastPath, q string, bindings map[string]*querypb.BindVariable) (fastResult, bool) {
	if _, err := env.e.PrepareQuery(ctx, q); err != nil {
		return fastResult{err: err.Error()}, false
	}
	return execFast(env, ctx, f, q, bindings)
}

// execFast executes the statement q, prepared already, on f's engine
// with a session using f, as a server session does.
func execFast(env *testEnv, ctx *sql.Context, f *fastPath, q string, bindings map[string]*querypb.BindVariable) (fastResult, bool) {
	sess := ctx.Session.(*Session)
	sess.fast = f
	defer func() { sess.fast = nil }()
	before := f.hits.Load()
	r := execEngine(&testEnv{t: env.t, p: env.p, e: f.e}, ctx, q, bindings)
	return r, f.hits.Load() > before
}

func collect(ctx *sql.Context, sch sql.Schema, iter sql.RowIter, err error) fastResult {
	if err != nil {
		return fastResult{err: err.Error()}
	}
	rows, err := sql.RowIterToRows(ctx, iter)
	if err != nil {
		return fastResult{err: err.Error()}
	}
	return fastResult{sch: sch, rows: rows}
}

// sameResult reports how a and b differ, or "".
func sameResult(ctx *sql.Context, a, b fastResult) string {
	if a.err != b.err {
		return fmt.Sprintf("errors differ: %q and %q", a.err, b.err)
	}
	if a.err != "" {
		return ""
	}
	if len(a.sch) != len(b.sch) {
		return fmt.Sprintf("schemas differ: %d and %d columns", len(a.sch), len(b.sch))
	}
	for i := range a.sch {
		// What the handler sends of a column (server.schemaToFields).
		x, y := a.sch[i], b.sch[i]
		if x.Name != y.Name || x.Source != y.Source || x.DatabaseSource != y.DatabaseSource || !x.Type.Equals(y.Type) ||
			x.Nullable != y.Nullable || x.AutoIncrement != y.AutoIncrement || x.PrimaryKey != y.PrimaryKey {
			return fmt.Sprintf("column %d differs: %+v and %+v", i, *x, *y)
		}
	}
	if len(a.rows) == 0 && len(b.rows) == 0 {
		return ""
	}
	if x, y := rowsKey(ctx, a.rows), rowsKey(ctx, b.rows); x != y {
		return fmt.Sprintf("rows differ:\n%s\n%s", x, y)
	}
	return ""
}

// rowsKey prints rows with each value's Go type, JSON as its text.
func rowsKey(ctx *sql.Context, rows []sql.Row) string {
	var b strings.Builder
	for _, r := range rows {
		for _, v := range r {
			if j, ok := v.(sql.JSONWrapper); ok {
				s, err := types.JsonToMySqlString(ctx, j)
				fmt.Fprintf(&b, "json(%s %v) ", s, err)
				continue
			}
			fmt.Fprintf(&b, "%T(%v) ", v, v)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func TestFastPathClassify(t *testing.T) {
	yes := map[string]string{
		"SELECT c FROM sbtest1 WHERE id=?":                                   ".sbtest1 [c] where id = :v1",
		"select c, pad from sbtest1 where ? = id":                            ".sbtest1 [c pad] where id = :v1",
		"SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?":                     ".sbtest1 [c] where id between :v1 and :v2",
		"SELECT sbtest1.c FROM db.sbtest1 WHERE db.sbtest1.id=?":             "db.sbtest1 [c] where id = :v1",
		"SELECT `c`, `k` FROM `sbtest1` WHERE `id` = ?":                      ".sbtest1 [c k] where id = :v1",
		"SELECT c FROM sbtest1 WHERE (id = ?)":                               "",
		"SELECT c FROM sbtest1 WHERE id = 5":                                 "",
		"SELECT c AS x FROM sbtest1 WHERE id = ?":                            "",
		"SELECT c FROM sbtest1 AS s WHERE id = ?":                            "",
		"SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN ? AND ?":            ".sbtest1 distinct [c] where id between :v1 and :v2",
		"SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c":          ".sbtest1 [c] order by c where id between :v1 and :v2",
		"SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c": ".sbtest1 distinct [c] order by c where id between :v1 and :v2",
		"SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY k DESC":     ".sbtest1 [c] order by k desc where id between :v1 and :v2",
		"SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY k": "",
		"SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN ? AND ?":                ".sbtest1 sum[k] where id between :v1 and :v2",
		"SELECT sum(k) FROM sbtest1 WHERE id = ?":                            ".sbtest1 sum[k] where id = :v1",
		"SELECT SUM(k), c FROM sbtest1 WHERE id = ?":                         "",
		"SELECT SUM(DISTINCT k) FROM sbtest1 WHERE id = ?":                   "",
		"SELECT SUM(k) AS s FROM sbtest1 WHERE id = ?":                       "",
		"SELECT SUM(k) FROM sbtest1 WHERE id = ? ORDER BY k":                 "",
		"SELECT COUNT(k) FROM sbtest1 WHERE id = ?":                          "",
		"SELECT c FROM sbtest1 WHERE id = ? ORDER BY c, k":                   "",
		"SELECT c FROM sbtest1 WHERE id = ? ORDER BY c COLLATE utf8mb4_bin":  "",
		"SELECT c FROM sbtest1 WHERE id = ? LIMIT 1":                         "",
		"SELECT c FROM sbtest1 WHERE id = ? FOR UPDATE":                      "",
		"SELECT c FROM sbtest1 AS OF 'main' WHERE id = ?":                    "",
		"SELECT c, c FROM sbtest1 WHERE id = ?":                              "",
		"SELECT * FROM sbtest1 WHERE id = ?":                                 "",
		"SELECT c+1 FROM sbtest1 WHERE id = ?":                               "",
		"SELECT c FROM sbtest1 WHERE id = ? AND k = ?":                       "",
		"SELECT c FROM sbtest1 WHERE id NOT BETWEEN ? AND ?":                 "",
		"SELECT c FROM sbtest1 WHERE id <=> ?":                               "",
		"SELECT c FROM sbtest1 JOIN t2 WHERE id = ?":                         "",
		"SELECT c FROM other.sbtest1 WHERE sbtest1.id = ?":                   "other.sbtest1 [c] where id = :v1",
		"SELECT c FROM sbtest1 WHERE other.id = ?":                           "",
		"SELECT /*+ JOIN_ORDER(a) */ c FROM sbtest1 WHERE id = ?":            "",
		"UPDATE sbtest1 SET c = ? WHERE id = ?":                              "",
		"SELECT SQL_CALC_FOUND_ROWS c FROM sbtest1 WHERE id = ?":             "",
		"SELECT c FROM sbtest1 USE INDEX (k_1) WHERE id = ?":                 "",
		"SELECT c FROM sbtest1 WHERE id = ? GROUP BY c":                      "",
		"not sql at all": "",
	}
	for q, want := range yes {
		got := ""
		if tm := classify(q); tm != nil {
			got = tm.String()
		}
		if got != want {
			t.Errorf("%s: got %q, want %q", q, got, want)
		}
	}
}

// TestFastPathAgainstEngine runs random prepared selects, with random
// values of every kind, through the fast path and through the engine's
// planning on the same session, and requires the same result columns,
// rows and errors. It also requires that the fast path answered the
// eligible ones itself.
func TestFastPathAgainstEngine(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, `CREATE TABLE t (id INT PRIMARY KEY, k INT NOT NULL DEFAULT 0, c CHAR(20) NOT NULL DEFAULT '',
		v VARCHAR(30), d DECIMAL(10,2), ts DATETIME, j JSON, b BLOB, INDEX k_1(k))`)
	env.exec(ctx, "CREATE TABLE small (id TINYINT UNSIGNED PRIMARY KEY, s VARCHAR(10) COLLATE utf8mb4_0900_ai_ci)")
	env.exec(ctx, "CREATE TABLE big (id BIGINT PRIMARY KEY, s TEXT)")
	env.exec(ctx, "CREATE TABLE strkey (id VARCHAR(10) PRIMARY KEY, s TEXT)")
	env.exec(ctx, "CREATE TABLE twokey (a INT, b INT, s TEXT, PRIMARY KEY (a, b))")
	env.exec(ctx, "CREATE TABLE nokey (id INT, s TEXT)")
	env.exec(ctx, "CREATE VIEW vw AS SELECT id, c FROM t")
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 300; i++ {
		id := rng.Intn(400) - 50
		env.exec(ctx, fmt.Sprintf("INSERT IGNORE INTO t VALUES (%d, %d, 'c%d', %s, %d.25, '2026-11-30 10:%02d:00', '{\"a\": %d}', 'b%d')",
			id, rng.Intn(100), id, []string{"NULL", fmt.Sprintf("'v%d'", id)}[rng.Intn(2)], id, id%60, id, id))
	}
	for i := 0; i < 256; i += 3 {
		env.exec(ctx, fmt.Sprintf("INSERT INTO small VALUES (%d, 's%d')", i, i))
	}
	env.exec(ctx, "INSERT INTO big (id, s) VALUES (-9223372036854775807, 'min'), (9223372036854775807, 'max'), (0, 'zero'), (7, 'seven')")
	env.exec(ctx, "INSERT INTO strkey VALUES ('5', 'five'), ('a', 'A')")
	env.exec(ctx, "INSERT INTO twokey VALUES (1, 1, 'x'), (1, 2, 'y')")
	env.exec(ctx, "INSERT INTO nokey VALUES (1, 'x'), (1, 'y')")

	_, f := newFastEngine(env.p) // a server's engine over the same databases
	queries := []string{
		"SELECT c FROM t WHERE id = ?",
		"SELECT c FROM t WHERE ? = id",
		"SELECT id, k, c, v, d, ts, j, b FROM t WHERE id = ?",
		"SELECT v, d FROM t WHERE id BETWEEN ? AND ?",
		"SELECT c FROM t WHERE id BETWEEN ? AND ?",
		"SELECT c, id FROM t WHERE id = ?",
		"SELECT id, c FROM t WHERE id = ?",
		"SELECT j, v, k FROM t WHERE id BETWEEN ? AND ?",
		"SELECT id FROM t WHERE id BETWEEN ? AND ?",
		"SELECT c FROM t WHERE id BETWEEN ? AND ? ORDER BY c",
		"SELECT v FROM t WHERE id BETWEEN ? AND ? ORDER BY v DESC",
		"SELECT c FROM t WHERE id BETWEEN ? AND ? ORDER BY k",
		"SELECT id, k FROM t WHERE id BETWEEN ? AND ? ORDER BY k DESC",
		"SELECT DISTINCT k FROM t WHERE id BETWEEN ? AND ? ORDER BY k",
		"SELECT DISTINCT v FROM t WHERE id BETWEEN ? AND ?",
		"SELECT DISTINCT k, v FROM t WHERE id BETWEEN ? AND ? ORDER BY v",
		"SELECT SUM(k) FROM t WHERE id BETWEEN ? AND ?",
		"SELECT SUM(d) FROM t WHERE id BETWEEN ? AND ?",
		"SELECT SUM(v) FROM t WHERE id BETWEEN ? AND ?",
		"SELECT SUM(k) FROM t WHERE id = ?",
		"SELECT s FROM small WHERE id BETWEEN ? AND ? ORDER BY s DESC",
		"SELECT SUM(id) FROM big WHERE id BETWEEN ? AND ?",
		"SELECT t.c FROM db.t WHERE t.id = ?",
		"SELECT C FROM t WHERE id = ?", // case differs: planned
		"SELECT c FROM T WHERE id = ?", // table case differs: planned
		"SELECT c FROM t WHERE ID = ?", // key case differs: planned
		"SELECT nope FROM t WHERE id = ?",
		"SELECT c FROM t WHERE k = ?", // not the key: planned
		"SELECT c FROM missing WHERE id = ?",
		"SELECT c FROM vw WHERE id = ?", // a view: planned
		"SELECT s FROM small WHERE id = ?",
		"SELECT s FROM small WHERE id BETWEEN ? AND ?",
		"SELECT s, id FROM big WHERE id = ?",
		"SELECT s FROM big WHERE id BETWEEN ? AND ?",
		"SELECT s FROM strkey WHERE id = ?",
		"SELECT s FROM twokey WHERE a = ?",
		"SELECT s FROM nokey WHERE id = ?",
		"SELECT commit_hash FROM dolt_log WHERE commit_hash = ?",
		"SELECT c FROM other.t WHERE id = ?",
	}
	value := func() *querypb.BindVariable {
		switch rng.Intn(12) {
		case 0:
			return sqltypes.NullBindVariable
		case 1:
			return sqltypes.StringBindVariable(fmt.Sprint(rng.Intn(300)))
		case 2:
			return sqltypes.StringBindVariable("abc")
		case 3:
			return sqltypes.Float64BindVariable(float64(rng.Intn(300)) + 0.5)
		case 4:
			return sqltypes.Uint64BindVariable(uint64(rng.Intn(300)))
		case 5:
			return sqltypes.Uint64BindVariable(math.MaxUint64 - uint64(rng.Intn(3)))
		case 6:
			return sqltypes.Int64BindVariable([]int64{math.MinInt64, math.MaxInt64, -1, 256, 255, 1 << 31, -(1 << 31) - 1}[rng.Intn(7)])
		case 7:
			return sqltypes.Int32BindVariable(int32(rng.Intn(300) - 50))
		default:
			return sqltypes.Int64BindVariable(int64(rng.Intn(420) - 60))
		}
	}
	// Schema changes between executions: the learned result columns
	// must follow the table's schema.
	alters := []string{
		"ALTER TABLE t MODIFY c CHAR(20) NOT NULL DEFAULT 'x'",
		"ALTER TABLE t ADD COLUMN extra INT DEFAULT 7 AFTER id",
		"ALTER TABLE t MODIFY v VARCHAR(40) DEFAULT 'dv'",
		"ALTER TABLE t DROP COLUMN extra",
		"ALTER TABLE t RENAME COLUMN c TO c2",
		"ALTER TABLE t RENAME COLUMN c2 TO c",
	}
	fast, eligible, textFast := 0, 0, 0
	fastBy := map[string]int{}
	for i := 0; i < 3000; i++ {
		if i%400 == 399 {
			env.exec(ctx, alters[(i/400)%len(alters)])
		}
		q := queries[rng.Intn(len(queries))]
		b := map[string]*querypb.BindVariable{"v1": value()}
		if strings.Contains(q, "BETWEEN") {
			b["v2"] = value()
			if rng.Intn(2) == 0 { // mostly sensible ranges
				lo := rng.Intn(400) - 50
				b["v1"], b["v2"] = sqltypes.Int64BindVariable(int64(lo)), sqltypes.Int64BindVariable(int64(lo+rng.Intn(30)))
			}
		}
		want := runEngine(env, ctx, q, b)
		got, usedFast := runFast(env, ctx, f, q, b)
		if d := sameResult(ctx, want, got); d != "" {
			t.Fatalf("%s with %v: %s", q, b, d)
		}
		if usedFast {
			fast++
			fastBy[q]++
		}
		if isIntBinding(b["v1"]) && (b["v2"] == nil || isIntBinding(b["v2"])) && (strings.HasPrefix(q, "SELECT c FROM t WHERE") && !strings.Contains(q, "k =") && !strings.Contains(q, "ID =")) {
			eligible++
		}
		// The same query as text, its values written in: the server's
		// engine (whose parser gives it to the fast path) against the
		// plain one, on the same session.
		if text, ok := inlineValues(q, b); ok {
			before := f.hits.Load()
			wsch, it, _, err := env.e.Query(ctx, text)
			want := collect(ctx, wsch, it, err)
			gsch, it, _, err := f.e.Query(ctx, text)
			got := collect(ctx, gsch, it, err)
			if d := sameResult(ctx, want, got); d != "" {
				t.Fatalf("text %s: %s", text, d)
			}
			if f.hits.Load() > before {
				textFast++
			}
		}
	}
	if textFast == 0 {
		t.Fatal("the fast path answered no text query")
	}
	t.Logf("fast path answered %d text queries", textFast)
	if fast == 0 || fast < eligible/2 {
		t.Fatalf("the fast path answered %d of 3000 executions (%d plainly eligible)", fast, eligible)
	}
	// Every shape the fast path takes was answered by it at least once.
	for _, q := range queries {
		if classify(q) != nil && !strings.Contains(q, "C FROM") && !strings.Contains(q, " T ") && !strings.Contains(q, "ID =") &&
			!strings.Contains(q, "k =") && !strings.Contains(q, "nope") && !strings.Contains(q, "missing") && !strings.Contains(q, "vw") &&
			!strings.Contains(q, "strkey") && !strings.Contains(q, "twokey") && !strings.Contains(q, "nokey") && !strings.Contains(q, "dolt_log") &&
			!strings.Contains(q, "other.t") && fastBy[q] == 0 {
			t.Errorf("the fast path never answered %s", q)
		}
	}
	t.Logf("fast path answered %d of 3000 executions", fast)
}

// inlineValues returns q with its placeholders replaced by the values
// of b written as SQL literals, when they all are integers or strings.
func inlineValues(q string, b map[string]*querypb.BindVariable) (string, bool) {
	for _, name := range []string{"v1", "v2"} {
		bv, ok := b[name]
		if !strings.Contains(q, "?") {
			break
		}
		if !ok {
			return "", false
		}
		v, err := sqltypes.BindVariableToValue(bv)
		if err != nil {
			return "", false
		}
		var lit string
		switch {
		case v.IsSigned() || v.IsUnsigned():
			lit = v.ToString()
		case v.IsQuoted():
			lit = "'" + strings.ReplaceAll(v.ToString(), "'", "''") + "'"
		default:
			return "", false
		}
		q = strings.Replace(q, "?", lit, 1)
	}
	return q, true
}

func isIntBinding(bv *querypb.BindVariable) bool {
	v, err := sqltypes.BindVariableToValue(bv)
	return err == nil && (v.IsSigned() || v.IsUnsigned())
}

// TestFastPathTransactions: the fast path reads the statement's
// transaction, so it sees the transaction's own writes and not another
// session's uncommitted ones, and runs in revision databases through the
// engine.
func TestFastPathTransactions(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, "CREATE TABLE t (id INT PRIMARY KEY, c TEXT)")
	env.exec(ctx, "INSERT INTO t VALUES (1, 'one')")
	_, f := newFastEngine(env.p) // a server's engine over the same databases
	other := env.session("db")
	q := "SELECT c FROM t WHERE id = ?"
	one := map[string]*querypb.BindVariable{"v1": sqltypes.Int64BindVariable(2)}
	// The first execution also plans the statement, which teaches the
	// template its result columns.
	if r, used := runFast(env, ctx, f, q, one); !used || r.err != "" || len(r.rows) != 0 {
		t.Fatalf("first execution: %v %+v", used, r)
	}

	env.exec(ctx, "BEGIN")
	env.exec(ctx, "INSERT INTO t VALUES (2, 'two')")
	r, used := runFast(env, ctx, f, q, one)
	if !used || formatRows(r.rows) != "[two]" || !r.max1 {
		t.Fatalf("own write: %v %+v", used, r)
	}
	// A range may return many rows.
	rq := "SELECT c FROM t WHERE id BETWEEN ? AND ?"
	rb := map[string]*querypb.BindVariable{"v1": sqltypes.Int64BindVariable(1), "v2": sqltypes.Int64BindVariable(2)}
	runFast(env, ctx, f, rq, rb)
	if r, used = runFast(env, ctx, f, rq, rb); !used || formatRows(r.rows) != "[one] [two]" || r.max1 {
		t.Fatalf("range: %v %+v", used, r)
	}
	r, used = runFast(env, other, f, q, one)
	if !used || len(r.rows) != 0 || r.err != "" {
		t.Fatalf("another session saw an uncommitted row: %v %+v", used, r)
	}
	env.exec(ctx, "COMMIT")
	r, _ = runFast(env, other, f, q, one)
	if formatRows(r.rows) != "[two]" {
		t.Fatalf("after commit: %+v", r)
	}
	// A temporary table shadows the stored one.
	env.exec(other, "CREATE TEMPORARY TABLE t (id INT PRIMARY KEY, c TEXT)")
	env.exec(other, "INSERT INTO t VALUES (2, 'temp')")
	want := runEngine(env, other, q, one)
	r, _ = runFast(env, other, f, q, one)
	if d := sameResult(other, want, r); d != "" || formatRows(r.rows) != "[temp]" {
		t.Fatalf("temporary table: %s %+v", d, r)
	}
	// A revision database goes through the engine.
	rev := env.session("db/main")
	want = runEngine(env, rev, q, one)
	r, used = runFast(env, rev, f, q, one)
	if d := sameResult(rev, want, r); d != "" || used {
		t.Fatalf("revision database: %s fast=%v", d, used)
	}
}

// BenchmarkPreparedPointSelect compares a prepared primary-key select
// through the engine's planning and through the fast path, in process on
// sysbench's table shape (100,000 rows in memory).
func BenchmarkPreparedPointSelect(b *testing.B) {
	env := newEnv(b, NewMemoryProvider())
	ctx := setupDB(env)
	loadSysbenchTable(env, ctx, 100000)
	_, f := newFastEngine(env.p) // a server's engine over the same databases
	for _, bq := range []struct{ name, q string }{
		{"point", "SELECT c FROM sbtest1 WHERE id=?"},
		{"range", "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?"},
		{"order", "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c"},
		{"distinct", "SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c"},
	} {
		name, q := bq.name, bq.q
		bind := func(i int) map[string]*querypb.BindVariable {
			lo := 1 + (i*7477)%(100000-100)
			return map[string]*querypb.BindVariable{"v1": sqltypes.Int64BindVariable(int64(lo)), "v2": sqltypes.Int64BindVariable(int64(lo + 99))}
		}
		// Prepared once, as a client does; the first execution teaches
		// the fast path the result columns.
		if _, err := env.e.PrepareQuery(ctx, q); err != nil {
			b.Fatal(err)
		}
		warm := bind(0)
		if name == "point" {
			delete(warm, "v2")
		}
		execFast(env, ctx, f, q, warm)
		// The wire server's executions without the engine's handler
		// (fastdirect.go), on a session of its own.
		b.Run(name+"/direct", func(b *testing.B) {
			emb := &Embedded{Engine: f.e, p: env.p, fast: f}
			s := emb.NewSession(sql.NewBaseSessionWithClientServer("bench", sql.Client{}, 99))
			emb.StartSession(s, 99, "localhost")
			sctx := sql.NewContext(context.Background(), sql.WithSession(s))
			sctx.SetCurrentDatabase(ctx.GetCurrentDatabase())
			if _, err := f.e.PrepareQuery(sctx, q); err != nil {
				b.Fatal(err)
			}
			want := 1
			if name != "point" {
				want = 100
			}
			got := 0
			count := func(r *sqltypes.Result) error { got = len(r.Rows); return nil }
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				bv := bind(i)
				if name == "point" {
					delete(bv, "v2")
				}
				if ok, err := emb.ExecPrepared(context.Background(), s, q, bv, count); !ok || err != nil || got != want {
					b.Fatal(ok, err, got)
				}
			}
		})
		if name == "point" {
			b.Run(name+"/engine", func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if r := execEngine(env, ctx, q, map[string]*querypb.BindVariable{"v1": bind(i)["v1"]}); len(r.rows) != 1 {
						b.Fatal(r)
					}
				}
			})
			b.Run(name+"/fast", func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if r, used := execFast(env, ctx, f, q, map[string]*querypb.BindVariable{"v1": bind(i)["v1"]}); len(r.rows) != 1 || !used {
						b.Fatal(r)
					}
				}
			})
			continue
		}
		b.Run(name+"/engine", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if r := execEngine(env, ctx, q, bind(i)); len(r.rows) != 100 {
					b.Fatal(r)
				}
			}
		})
		b.Run(name+"/fast", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if r, used := execFast(env, ctx, f, q, bind(i)); len(r.rows) != 100 || !used {
					b.Fatal(r)
				}
			}
		})
	}
}
