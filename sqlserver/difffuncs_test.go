package sqlserver

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/chunks"
)

// TestDiffFunctionErrors: the diff table functions refuse their arguments
// in Dolt's words, with error 1105 (Dolt's own functions' number for a
// wrong count of arguments too).
func TestDiffFunctionErrors(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, "CREATE TABLE t (pk INT PRIMARY KEY)")
	env.exec(ctx, "CALL dolt_commit('-Am', 'first')")
	for _, c := range []struct{ q, want string }{
		{"dolt_diff()", "function 'dolt_diff' expected 2 to 3 arguments, 0 received"},
		{"dolt_diff('HEAD', 't')", "function 'dolt_diff' expected 3 arguments, 2 received"},
		{"dolt_diff('HEAD..WORKING', 't', 'x')", "function 'dolt_diff with .. or ...' expected 2 arguments, 3 received"},
		{"dolt_diff(1, 2, 3)", "Invalid argument to dolt_diff: 3"},
		{"dolt_diff(NULL, 'WORKING', 't')", "Invalid argument to dolt_diff: NULL"},
		{"dolt_diff('HEAD', 'WORKING', 'nope')", "table not found: nope"},
		{"dolt_diff('nope', 'WORKING', 't')", "branch not found: nope"},
		{"dolt_diff('working', 'HEAD', 't')", "branch not found: working"},
		{"dolt_diff('HEAD~3', 'HEAD', 't')", "invalid ancestor spec"},
		{"dolt_diff('0123456789abcdefghijklmnopqrstuv', 'HEAD', 't')", "target commit not found"},
		{"dolt_diff('HEAD...WORKING', 't')", "branch not found: WORKING"},
		{"dolt_diff('main..', 't')", "expected strings for from and to revisions, got: main, "},
		{"dolt_diff(concat('HE', 'AD'), 'WORKING', 't')", "Invalid argument to dolt_diff: concat('HE','AD') – only literal values supported"},
		{"dolt_diff_stat()", "function 'dolt_diff_stat' expected 1 to 3 arguments, 0 received"},
		{"dolt_diff_stat('HEAD')", "function 'dolt_diff_stat' expected 2 or 3 arguments, 1 received"},
		{"dolt_diff_stat('HEAD..WORKING', 't', 'x')", "function 'dolt_diff_stat' expected 1 or 2 arguments, 3 received"},
		{"dolt_diff_stat('HEAD', 'WORKING', 'nope')", "table not found: nope"},
		{"dolt_diff_summary(1, 2)", "Invalid argument to dolt_diff_summary: 1"},
		{"dolt_diff_summary('HEAD', NULL)", "Invalid argument to dolt_diff_summary: NULL"},
		{"dolt_patch('HEAD', 'WORKING', 't', 'x')", "function 'dolt_patch' expected 2 or 3 arguments, 4 received"},
		{"dolt_patch('HEAD', 'WORKING', 'nope')", "table not found: nope"},
		{"dolt_schema_diff('HEAD')", "Invalid argument to dolt_schema_diff: There are less than 2 arguments present, and the first does not contain '..'"},
		{"dolt_schema_diff('HEAD', 'WORKING', 't', 'x')", "function 'dolt_schema_diff' expected 1 to 3 arguments, 4 received"},
		{"dolt_query_diff('SELECT 1')", "function 'dolt_query_diff' expected 2 arguments, 1 received"},
		{"dolt_query_diff(NULL, 'SELECT 1')", "query must be a string, not <nil>"},
		{"dolt_query_diff('DELETE FROM t', 'SELECT 1')", "query must be a SELECT statement"},
		{"dolt_query_diff('SELECT * FROM nope', 'SELECT 1')", "table not found: nope"},
	} {
		q := "SELECT * FROM " + c.q
		_, err := env.query(ctx, q)
		if err == nil {
			t.Fatalf("%s: no error, want %q", q, c.want)
		}
		se := MySQLError(err, q)
		if se.Message != c.want {
			t.Errorf("%s: %q, want %q", q, se.Message, c.want)
		}
		if strings.HasPrefix(c.want, "table not found") {
			continue
		}
		if se.Num != mysql.ERUnknownError {
			t.Errorf("%s: error %d, want 1105", q, se.Num)
		}
	}
	// MySQL's functions keep MySQL's number for a wrong count.
	if se := MapError(sql.ErrInvalidArgumentNumber.New("abs", 1, 0), "SELECT abs()"); se.Num != 1582 {
		t.Errorf("abs(): %v, want MySQL's 1582", se)
	}
}

// readCountingStore counts the chunks read from a store.
type readCountingStore struct {
	chunks.Store
	reads atomic.Int64
}

func (s *readCountingStore) Get(ctx context.Context, a chunks.Address) ([]byte, error) {
	s.reads.Add(1)
	return s.Store.Get(ctx, a)
}

func (s *readCountingStore) GetMany(ctx context.Context, as []chunks.Address, found func(chunks.Address, []byte)) error {
	s.reads.Add(int64(len(as)))
	return s.Store.GetMany(ctx, as, found)
}

// TestDiffFunctionsCostFollowsChange: with one row changed in a table of
// many, each diff function reads a few chunks (the paths to the change),
// far fewer than a scan of the table, on a provider whose caches start
// cold.
func TestDiffFunctionsCostFollowsChange(t *testing.T) {
	cs := &readCountingStore{Store: chunks.NewMemoryStore()}
	open := func() *testEnv {
		p := NewMemoryProvider()
		db, err := verso.OpenStore("db", cs, verso.Options{Collations: sqlCollations{}})
		if err != nil {
			t.Fatal(err)
		}
		p.dbs["db"] = newState(db)
		return newEnv(t, p)
	}
	env := open()
	ctx := env.session("db")
	env.exec(ctx, "CREATE TABLE t (pk INT PRIMARY KEY, v INT, s VARCHAR(20))")
	env.exec(ctx, "CREATE TABLE k (a INT, b INT)")
	for i := 0; i < 50; i++ {
		var vals, kvals []string
		for j := 0; j < 1000; j++ {
			n := i*1000 + j
			vals = append(vals, fmt.Sprintf("(%d, %d, 'row %d')", n, n%7, n))
			kvals = append(kvals, fmt.Sprintf("(%d, %d)", n, n%3))
		}
		env.exec(ctx, "INSERT INTO t VALUES "+strings.Join(vals, ","))
		env.exec(ctx, "INSERT INTO k VALUES "+strings.Join(kvals, ","))
	}
	env.exec(ctx, "CALL dolt_commit('-Am', 'many rows')")
	env.exec(ctx, "UPDATE t SET v = -1 WHERE pk = 31234")
	env.exec(ctx, "INSERT INTO k VALUES (31234, 9)")

	reads := func(q string) int64 {
		env := open()
		ctx := env.session("db")
		before := cs.reads.Load()
		env.exec(ctx, q)
		return cs.reads.Load() - before
	}
	// What any query reads (the refs, the roots, the tables' headers)
	// and what a scan of t reads on top.
	base := reads("SELECT v FROM t WHERE pk = 1")
	scan := reads("SELECT SUM(v), COUNT(s) FROM t") - base
	t.Logf("a point read of t reads %d chunks, a scan %d more", base, scan)
	for _, q := range []string{
		"SELECT * FROM dolt_diff('HEAD', 'WORKING', 't')",
		"SELECT * FROM dolt_diff('HEAD', 'WORKING', 'k')",
		"SELECT * FROM dolt_diff_stat('HEAD', 'WORKING')",
		"SELECT * FROM dolt_diff_summary('HEAD', 'WORKING')",
		"SELECT * FROM dolt_schema_diff('HEAD', 'WORKING')",
		"SELECT * FROM dolt_patch('HEAD', 'WORKING')",
	} {
		n := reads(q) - base
		t.Logf("%s reads %d chunks more", q, n)
		if n*8 > scan {
			t.Errorf("%s read %d chunks more than a point read, a scan of t %d", q, n, scan)
		}
	}
	env = open()
	ctx = env.session("db")
	env.check(ctx, "SELECT statement FROM dolt_patch('HEAD', 'WORKING') ORDER BY statement_order",
		"[INSERT INTO `k` (`a`,`b`) VALUES (31234,9);] [UPDATE `t` SET `v`=-1 WHERE `pk`=31234;]")
}
