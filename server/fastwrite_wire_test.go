package server

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// TestFastWritesOverTheWire runs random single-row INSERTs, UPDATEs and
// DELETEs, prepared and as text, from go-sql-driver against two servers,
// one with the direct write path (sqlserver/fastwrite.go) and one without
// (NoFastPath), as three accounts (the superuser, one with every DML
// privilege on one table, one that may only read it), with and without
// CLIENT_FOUND_ROWS, under autocommit and in explicit transactions. After
// every statement both must give the same error or the same affected
// rows and insert id, then the same ROW_COUNT(), LAST_INSERT_ID(),
// FOUND_ROWS() and warnings; at the end of each account's run the same
// tables and the same Com_insert, Com_update and Com_delete.
func TestFastWritesOverTheWire(t *testing.T) {
	setup := []string{
		"CREATE DATABASE db",
		"CREATE TABLE db.t (id INT PRIMARY KEY AUTO_INCREMENT, k INT NOT NULL DEFAULT 0, c CHAR(10) NOT NULL DEFAULT '', v VARCHAR(8), u TINYINT UNSIGNED, UNIQUE KEY uv (v), KEY kk (k))",
		"CREATE TABLE db.p (id BIGINT PRIMARY KEY, s TEXT)",
		"CREATE TABLE db.ck (id INT PRIMARY KEY, n INT, CHECK (n > 0))",
		"INSERT INTO db.ck VALUES (1, 1), (2, 2)",
		"CREATE USER 'writer'@'%' IDENTIFIED BY 'pw'",
		"GRANT SELECT, INSERT, UPDATE, DELETE ON db.t TO 'writer'@'%'",
		"CREATE USER 'reader'@'%' IDENTIFIED BY 'pw'",
		"GRANT SELECT ON db.t TO 'reader'@'%'",
	}
	servers := fastAndPlanned(t, setup)
	rng := rand.New(rand.NewSource(11))
	str := func(max int) any {
		if rng.Intn(8) == 0 {
			return nil
		}
		const letters = "abcxyz 'é"
		r := []rune(letters)
		n := rng.Intn(max + 1)
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteRune(r[rng.Intn(len(r))])
		}
		return b.String()
	}
	id := func() any {
		switch rng.Intn(10) {
		case 0:
			return 0
		case 1:
			return nil
		case 2:
			return -3
		}
		return 1 + rng.Intn(40)
	}
	type stmt struct {
		q    string
		args func() []any
	}
	stmts := []stmt{
		{"INSERT INTO t (id, k, c, v, u) VALUES (?, ?, ?, ?, ?)", func() []any {
			return []any{id(), rng.Intn(100) - 10, str(11), str(9), []any{rng.Intn(300), -1, nil}[rng.Intn(3)]}
		}},
		{"INSERT INTO t VALUES (?, ?, ?, ?, ?)", func() []any { return []any{id(), 3_000_000_000, "x", nil, 1} }},
		{"INSERT INTO t (c, k, u, v, id) VALUES (?, ?, ?, ?, ?)", func() []any { return []any{str(4), rng.Intn(5), 7, str(3), id()} }},
		{"INSERT INTO t (k, c) VALUES (?, ?)", func() []any { return []any{rng.Intn(9), str(5)} }},
		{"INSERT INTO db.t (id, k, c, v, u) VALUES (?, ?, 'lit', NULL, 5)", func() []any { return []any{id(), rng.Intn(9)} }},
		{"UPDATE t SET k = k + ? WHERE id = ?", func() []any { return []any{rng.Intn(3), id()} }},
		{"UPDATE t SET k = k - 1 WHERE id = ?", func() []any { return []any{id()} }},
		{"UPDATE t SET u = u - ? WHERE id = ?", func() []any { return []any{rng.Intn(200), id()} }},
		{"UPDATE t SET c = ?, v = ? WHERE id = ?", func() []any { return []any{str(11), str(9), id()} }},
		{"UPDATE t SET k = ? WHERE id = ?", func() []any { return []any{rng.Intn(3), id()} }},
		{"UPDATE t SET id = ? WHERE id = ?", func() []any { return []any{id(), id()} }},
		{"UPDATE t SET k = ? WHERE id = ?", func() []any { return []any{"12", id()} }},
		{"DELETE FROM t WHERE id = ?", func() []any { return []any{id()} }},
		{"DELETE FROM t WHERE k = ?", func() []any { return []any{rng.Intn(5)} }},
		{"INSERT INTO p VALUES (?, ?)", func() []any { return []any{rng.Intn(20), str(30)} }},
		{"UPDATE p SET s = ? WHERE id = ?", func() []any { return []any{str(30), rng.Intn(20)} }},
		{"DELETE FROM p WHERE id = ?", func() []any { return []any{rng.Intn(20)} }},
		{"UPDATE ck SET n = ? WHERE id = ?", func() []any { return []any{rng.Intn(3) - 1, 1 + rng.Intn(2)} }},
		// Warnings a write must clear (the next SHOW WARNINGS shows them).
		{"SELECT 1/0", nil},
		// Reads inside a transaction see its writes, the direct ones
		// included (which stay out of its root until a read: deferWrites).
		{"SELECT * FROM t WHERE id = ?", func() []any { return []any{id()} }},
		{"SELECT COUNT(*), SUM(k), MAX(id) FROM t", nil},
		{"SELECT * FROM p WHERE id = ?", func() []any { return []any{rng.Intn(20)} }},
		{"BEGIN", nil},
		{"BEGIN", nil},
		{"BEGIN", nil},
		{"COMMIT", nil},
		{"ROLLBACK", nil},
	}
	ctx := context.Background()
	for _, user := range []string{"root", "writer", "reader"} {
		pw := "pw"
		if user == "root" {
			pw = ""
		}
		for _, params := range []string{"db", "db?interpolateParams=true", "db?clientFoundRows=true"} {
			var conns [2]*sql.Conn
			for j, s := range servers {
				c, err := connect(t, s, user, pw, params).Conn(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				conns[j] = c
				// A lock left taken shows as 1205 at once, not after 50 s.
				if _, err := c.ExecContext(ctx, "SET SESSION innodb_lock_wait_timeout = 1"); err != nil {
					t.Fatal(err)
				}
			}
			before := servers[0].emb.DirectWrites()
			for i := 0; i < 250; i++ {
				st := stmts[rng.Intn(len(stmts))]
				var args []any
				if st.args != nil {
					args = st.args()
				}
				warnings := rng.Intn(2) == 0
				var got [2]string
				for j, c := range conns {
					if strings.HasPrefix(st.q, "SELECT *") || strings.HasPrefix(st.q, "SELECT COUNT") {
						got[j] = queryText(ctx, c, st.q, args...)
						continue
					}
					got[j] = execResult(ctx, c, st.q, args, warnings)
				}
				if strings.Contains(got[1], "1205") {
					t.Fatalf("%s %s: %s %v waited for a lock no transaction should hold: %s", user, params, st.q, args, got[1])
				}
				if got[0] != got[1] {
					t.Fatalf("%s %s: %s %v:\ndirect: %s\nengine: %s", user, params, st.q, args, got[0], got[1])
				}
			}
			for _, c := range conns {
				if _, err := c.ExecContext(ctx, "COMMIT"); err != nil {
					t.Fatal(err)
				}
			}
			var final [2]string
			for j, c := range conns {
				final[j] = queryText(ctx, c, "SELECT * FROM db.t ORDER BY id") + queryText(ctx, c, "SELECT * FROM db.p ORDER BY id") +
					queryText(ctx, c, "SELECT * FROM db.ck ORDER BY id") + queryText(ctx, c, "SHOW SESSION STATUS LIKE 'Com_%'")
			}
			if final[0] != final[1] {
				t.Fatalf("%s %s: the tables or counters differ:\ndirect: %s\nengine: %s", user, params, final[0], final[1])
			}
			n := servers[0].emb.DirectWrites() - before
			if (user == "reader") != (n == 0) {
				t.Fatalf("%s %s: %d writes ran without the engine", user, params, n)
			}
			t.Logf("%s %s: %d writes without the engine", user, params, n)
		}
	}
}

// execResult runs q on c, prepared when it has arguments and the
// connection does not interpolate them, and prints its outcome and then
// its warnings, or the session's values after it (ROW_COUNT(),
// LAST_INSERT_ID(), FOUND_ROWS()).
func execResult(ctx context.Context, c *sql.Conn, q string, args []any, warnings bool) string {
	var b strings.Builder
	res, err := c.ExecContext(ctx, q, args...)
	if err != nil {
		n, state := mysqlErrNum(err)
		fmt.Fprintf(&b, "error %d %s %v", n, state, err)
	} else {
		ra, err1 := res.RowsAffected()
		id, err2 := res.LastInsertId()
		fmt.Fprintf(&b, "affected %d %v, insert id %d %v", ra, err1, id, err2)
	}
	b.WriteString(" | ")
	if warnings {
		b.WriteString(queryText(ctx, c, "SHOW WARNINGS"))
	} else {
		b.WriteString(queryText(ctx, c, "SELECT ROW_COUNT(), LAST_INSERT_ID(), FOUND_ROWS()"))
	}
	return b.String()
}

// queryText prints the rows of q on c, or its error.
func queryText(ctx context.Context, c *sql.Conn, q string, args ...any) string {
	rows, err := c.QueryContext(ctx, q, args...)
	if err != nil {
		return "error: " + err.Error()
	}
	defer rows.Close()
	var b strings.Builder
	printRows(&b, rows)
	return b.String()
}

// TestFailedStatementLetsGoOfLocks: an autocommit statement that fails
// after it locked rows (a duplicate value of a unique key, found after the
// row was locked), followed on the same connection by statements that
// fail in the engine's bind, leaves no lock behind: another connection
// writes the rows at once. With and without the direct write path.
func TestFailedStatementLetsGoOfLocks(t *testing.T) {
	servers := fastAndPlanned(t, []string{
		"CREATE DATABASE db",
		"CREATE TABLE db.t (id INT PRIMARY KEY, k INT, v VARCHAR(10), UNIQUE KEY uv (v))",
		"INSERT INTO db.t VALUES (1, 0, 'one'), (2, 0, 'two')",
	})
	ctx := context.Background()
	for i, s := range servers {
		for _, text := range []bool{false, true} {
			params := "db"
			if text {
				params += "?interpolateParams=true"
			}
			a, err := connect(t, s, "root", "", params).Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			b, err := connect(t, s, "root", "", params).Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			if _, err := b.ExecContext(ctx, "SET SESSION innodb_lock_wait_timeout = 1"); err != nil {
				t.Fatal(err)
			}
			for _, q := range []struct {
				q    string
				args []any
			}{
				{"UPDATE t SET v = ? WHERE id = ?", []any{"one", 2}},
				{"INSERT INTO t VALUES (?, ?, ?)", []any{3, 0, "two"}},
				{"DELETE FROM nope WHERE id = ?", []any{2}},
				{"UPDATE t SET nope = 1 WHERE id = ?", []any{2}},
			} {
				if _, err := a.ExecContext(ctx, q.q, q.args...); err == nil {
					t.Fatalf("%s: no error", q.q)
				}
			}
			for _, q := range []string{"UPDATE t SET k = k + 1 WHERE id = 2", "INSERT INTO t VALUES (3, 0, 'three')", "DELETE FROM t WHERE id = 3"} {
				if _, err := b.ExecContext(ctx, q); err != nil {
					t.Fatalf("server %d (text %v): %s after the failed statements of another connection: %v", i, text, q, err)
				}
			}
		}
	}
}

// TestFastWritesInTransactions runs explicit transactions made mostly of
// single-row writes by key to a few rows, which the direct write path
// keeps out of the transaction's root until something reads it (its
// reads go through the table's writer), against a server with the direct
// path and one without, while another connection of each commits writes
// to other rows of the same table between the statements, so that every
// COMMIT meets a working set that moved. After every statement both
// servers must answer alike (reads inside the transaction included), and
// at the end hold the same rows.
func TestFastWritesInTransactions(t *testing.T) {
	setup := []string{
		"CREATE DATABASE db",
		"CREATE TABLE db.t (id INT PRIMARY KEY, k INT NOT NULL, c VARCHAR(20) NOT NULL, KEY kk (k))",
		"CREATE TABLE db.u (id INT PRIMARY KEY, n INT NOT NULL)",
		"INSERT INTO db.t VALUES (1,1,'a'),(2,2,'b'),(3,3,'c'),(4,4,'d'),(5,5,'e'),(101,0,''),(102,0,''),(103,0,'')",
		"INSERT INTO db.u VALUES (1,0),(2,0),(3,0)",
	}
	servers := fastAndPlanned(t, setup)
	ctx := context.Background()
	for _, params := range []string{"db", "db?interpolateParams=true"} {
		rng := rand.New(rand.NewSource(5))
		key := func() int { return 1 + rng.Intn(6) }
		type stmt struct {
			q    string
			args func() []any
		}
		stmts := []stmt{
			{"UPDATE t SET k = k + ? WHERE id = ?", func() []any { return []any{1 + rng.Intn(3), key()} }},
			{"UPDATE t SET c = ? WHERE id = ?", func() []any { return []any{fmt.Sprint("c", rng.Intn(100)), key()} }},
			{"UPDATE t SET k = ?, c = ? WHERE id = ?", func() []any { return []any{rng.Intn(10), "x", key()} }},
			{"DELETE FROM t WHERE id = ?", func() []any { return []any{key()} }},
			{"INSERT INTO t (id, k, c) VALUES (?, ?, ?)", func() []any { return []any{key(), rng.Intn(10), "new"} }},
			{"UPDATE u SET n = n + 1 WHERE id = ?", func() []any { return []any{1 + rng.Intn(3)} }},
			{"SELECT * FROM t WHERE id = ?", func() []any { return []any{key()} }},
			{"SELECT COUNT(*), SUM(k) FROM t WHERE id < 100", nil},
			{"COMMIT", nil},
			{"ROLLBACK", nil},
		}
		var main, other [2]*sql.Conn
		for j, s := range servers {
			for _, c := range []**sql.Conn{&main[j], &other[j]} {
				conn, err := connect(t, s, "root", "", params).Conn(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				if _, err := conn.ExecContext(ctx, "SET SESSION innodb_lock_wait_timeout = 1"); err != nil {
					t.Fatal(err)
				}
				*c = conn
			}
		}
		before := servers[0].emb.DirectWrites()
		inTx := false
		for i := 0; i < 600; i++ {
			var q string
			var args []any
			if !inTx {
				q, inTx = "BEGIN", true
			} else {
				st := stmts[rng.Intn(len(stmts))]
				if st.q == "COMMIT" || st.q == "ROLLBACK" {
					inTx = false
				}
				q = st.q
				if st.args != nil {
					args = st.args()
				}
			}
			var got [2]string
			for j, c := range main {
				if strings.HasPrefix(q, "SELECT") {
					got[j] = queryText(ctx, c, q, args...)
				} else {
					got[j] = execResult(ctx, c, q, args, false)
				}
			}
			if got[0] != got[1] {
				t.Fatalf("%s, statement %d: %s %v:\ndirect: %s\nengine: %s", params, i, q, args, got[0], got[1])
			}
			if rng.Intn(3) == 0 {
				// Another transaction's commit moves the working set.
				oq, oargs := "UPDATE t SET k = k + 1 WHERE id = ?", []any{101 + rng.Intn(3)}
				for j, c := range other {
					got[j] = execResult(ctx, c, oq, oargs, false)
				}
				if got[0] != got[1] {
					t.Fatalf("%s, statement %d, other connection: %s %v:\ndirect: %s\nengine: %s", params, i, oq, oargs, got[0], got[1])
				}
			}
		}
		var final [2]string
		for j, c := range main {
			if _, err := c.ExecContext(ctx, "COMMIT"); err != nil {
				t.Fatal(err)
			}
			final[j] = queryText(ctx, c, "SELECT * FROM db.t ORDER BY id") + queryText(ctx, c, "SELECT * FROM db.u ORDER BY id")
		}
		if final[0] != final[1] {
			t.Fatalf("%s: the tables differ:\ndirect: %s\nengine: %s", params, final[0], final[1])
		}
		t.Logf("%s: %d writes without the engine", params, servers[0].emb.DirectWrites()-before)
	}
}
