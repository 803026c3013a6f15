package server

import (
	"database/sql"
	"fmt"
	"math/rand"
	"net"
	"strings"
	"testing"
)

// TestFastPathOverTheWire runs prepared selects from a MySQL client
// against two servers over the same data, one with the fast path and one
// without, as three users (the superuser, one with SELECT on the table,
// one with SELECT on another table only), and requires the same result
// columns, rows and errors.
func TestFastPathOverTheWire(t *testing.T) {
	setup := []string{
		"CREATE DATABASE db",
		"CREATE TABLE db.t (id BIGINT PRIMARY KEY, k INT NOT NULL DEFAULT 0, c CHAR(20) NOT NULL DEFAULT '', v VARCHAR(30), d DECIMAL(10,2), ts DATETIME(3))",
		"CREATE TABLE db.other (id INT PRIMARY KEY, s TEXT)",
		"CREATE USER 'reader'@'%' IDENTIFIED BY 'pw'",
		"GRANT SELECT ON db.t TO 'reader'@'%'",
		"CREATE USER 'stranger'@'%' IDENTIFIED BY 'pw'",
		"GRANT SELECT ON db.other TO 'stranger'@'%'",
	}
	for i := 0; i < 200; i++ {
		setup = append(setup, fmt.Sprintf("INSERT INTO db.t VALUES (%d, %d, 'c%d', %s, %d.5, '2026-11-30 10:00:%02d.123')",
			i*3, i%7, i, []string{"NULL", fmt.Sprintf("'v%d'", i)}[i%2], i, i%60))
	}
	servers := fastAndPlanned(t, setup)
	queries := []string{
		"SELECT c FROM t WHERE id = ?",
		"SELECT id, k, c, v, d, ts FROM t WHERE id = ?",
		"SELECT v, id FROM t WHERE id BETWEEN ? AND ?",
		"SELECT d FROM db.t WHERE id BETWEEN ? AND ?",
		"SELECT SUM(k) FROM t WHERE id BETWEEN ? AND ?",
		"SELECT c FROM t WHERE id BETWEEN ? AND ? ORDER BY c",
		"SELECT DISTINCT k FROM t WHERE id BETWEEN ? AND ? ORDER BY k DESC",
		"SELECT nope FROM t WHERE id = ?",
		"SELECT c FROM missing WHERE id = ?",
	}
	rng := rand.New(rand.NewSource(7))
	for _, user := range []string{"root", "reader", "stranger"} {
		pw := "pw"
		if user == "root" {
			pw = ""
		}
		// Server-side prepared statements, and (interpolateParams) text
		// queries with the values written in.
		conns := []*sql.DB{connect(t, servers[0], user, pw, "db"), connect(t, servers[1], user, pw, "db")}
		texts := []*sql.DB{connect(t, servers[0], user, pw, "db?interpolateParams=true"), connect(t, servers[1], user, pw, "db?interpolateParams=true")}
		before := servers[0].emb.FastPathHits()
		for i := 0; i < 150; i++ {
			q := queries[rng.Intn(len(queries))]
			args := []any{rng.Intn(700) - 50}
			if strings.Contains(q, "BETWEEN") {
				args = append(args, args[0].(int)+rng.Intn(40))
			}
			for k, cs := range [][]*sql.DB{conns, texts} {
				var got [2]string
				for j, c := range cs {
					got[j] = wireResult(c, q, args, k == 1)
				}
				if got[0] != got[1] {
					t.Fatalf("%s %s %v:\nfast path: %s\nengine:    %s", user, q, args, got[0], got[1])
				}
			}
		}
		// The stranger may not read t: every execution goes through the
		// engine, which refuses it.
		if hits := servers[0].emb.FastPathHits() - before; (user == "stranger") != (hits == 0) {
			t.Fatalf("the fast path answered %d executions for %s", hits, user)
		}
	}
	if servers[0].emb.FastPathHits() == 0 {
		t.Fatal("the fast path answered no execution")
	}
	if servers[0].emb.DirectExecutions() == 0 {
		t.Fatal("no prepared execution ran without the engine's handler")
	}
	t.Logf("fast path answered %d executions, %d of them without the engine's handler", servers[0].emb.FastPathHits(), servers[0].emb.DirectExecutions())
}

// fastAndPlanned starts two servers, one with the fast path and one
// without (NoFastPath), and runs setup on each as root. No users file:
// users and grants live in memory (CREATE USER used to drop the
// connection there).
func fastAndPlanned(t *testing.T, setup []string) [2]*Server {
	t.Helper()
	var servers [2]*Server
	for i, noFast := range []bool{false, true} {
		s, _ := startTestServer(t, t.TempDir(), Config{NoFastPath: noFast, UsersFile: ""})
		root := connect(t, s, "root", "", "")
		for _, q := range setup {
			if _, err := root.Exec(q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		servers[i] = s
	}
	return servers
}

// wireResult runs q as a prepared statement, or as a text query with the
// values written in by the client, and prints its columns, rows or error.
func wireResult(c *sql.DB, q string, args []any, text bool) string {
	var rows *sql.Rows
	var err error
	if text {
		rows, err = c.Query(q, args...)
	} else {
		stmt, perr := c.Prepare(q)
		if perr != nil {
			n, state := mysqlErrNum(perr)
			return fmt.Sprintf("prepare error %d %s %v", n, state, perr)
		}
		defer stmt.Close()
		rows, err = stmt.Query(args...)
	}
	if err != nil {
		n, state := mysqlErrNum(err)
		return fmt.Sprintf("error %d %s %v", n, state, err)
	}
	defer rows.Close()
	var b strings.Builder
	printRows(&b, rows)
	return b.String()
}

// printRows prints the columns of rows (name, type, length, decimals,
// nullability, Go type), then each row's values, then the error that
// ended them if any.
func printRows(b *strings.Builder, rows *sql.Rows) {
	cts, err := rows.ColumnTypes()
	if err != nil {
		b.WriteString(err.Error())
		return
	}
	for _, ct := range cts {
		l, lok := ct.Length()
		p, s, dok := ct.DecimalSize()
		n, nok := ct.Nullable()
		fmt.Fprintf(b, "%s %s %d/%v %d,%d/%v %v/%v %v; ", ct.Name(), ct.DatabaseTypeName(), l, lok, p, s, dok, n, nok, ct.ScanType())
	}
	b.WriteString("\n")
	vals := make([]sql.RawBytes, len(cts))
	ptrs := make([]any, len(cts))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			b.WriteString(err.Error())
			return
		}
		for _, v := range vals {
			if v == nil {
				b.WriteString("NULL ")
			} else {
				fmt.Fprintf(b, "%q ", v)
			}
		}
		b.WriteString("\n")
	}
	if err := rows.Err(); err != nil {
		n, state := mysqlErrNum(err)
		fmt.Fprintf(b, "error %d %s %v\n", n, state, err)
	}
}

// TestFastPathConcurrent runs prepared point and range selects on four
// connections while a fifth updates the rows: every read sees whole
// committed states (a row's two columns always agree) and never goes back
// in time on its connection.
func TestFastPathConcurrent(t *testing.T) {
	s, _ := startTestServer(t, t.TempDir(), Config{})
	root := connect(t, s, "root", "", "")
	for _, q := range []string{
		"CREATE DATABASE db",
		"CREATE TABLE db.t (id INT PRIMARY KEY, a INT NOT NULL, b INT NOT NULL)",
		"INSERT INTO db.t VALUES (1, 0, 0), (2, 0, 0), (3, 0, 0), (4, 0, 0)",
	} {
		if _, err := root.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan struct{})
	errs := make(chan error, 5)
	go func() {
		w := connect(t, s, "root", "", "db")
		for i := 1; i <= 300; i++ {
			if _, err := w.Exec("UPDATE t SET a = ?, b = ? WHERE id = ?", i, -i, 1+i%4); err != nil {
				errs <- err
				break
			}
		}
		close(done)
	}()
	for r := 0; r < 4; r++ {
		go func() {
			c := connect(t, s, "root", "", "db")
			c.SetMaxOpenConns(1)
			point, err := c.Prepare("SELECT a, b FROM t WHERE id = ?")
			if err != nil {
				errs <- err
				return
			}
			rng, err := c.Prepare("SELECT SUM(a), SUM(b) FROM t WHERE id BETWEEN ? AND ?")
			if err != nil {
				errs <- err
				return
			}
			last := map[int]int{}
			for i := 0; ; i++ {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				id := 1 + i%4
				var a, b int
				if err := point.QueryRow(id).Scan(&a, &b); err != nil {
					errs <- err
					return
				}
				if a != -b || a < last[id] {
					errs <- fmt.Errorf("row %d read as (%d, %d) after a = %d", id, a, b, last[id])
					return
				}
				last[id] = a
				var sa, sb int
				if err := rng.QueryRow(1, 4).Scan(&sa, &sb); err != nil {
					errs <- err
					return
				}
				if sa != -sb {
					errs <- fmt.Errorf("sums read as (%d, %d)", sa, sb)
					return
				}
			}
		}()
	}
	for i := 0; i < 4; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if s.emb.FastPathHits() == 0 {
		t.Fatal("the fast path answered no execution")
	}
}

// TestFastPathNodeMySQL2 runs testdata/clients/node/fastpath.js (Node's
// mysql2, server-side prepared statements) against a server that answers
// prepared primary-key selects without the engine's handler and one whose
// engine plans every statement, over the same data and users, and
// requires the same transcript: every attribute of the column
// descriptions (character sets, lengths, flags, decimals), rows, errors,
// FOUND_ROWS(), ROW_COUNT(), warnings, statement counters, what
// transactions see, a privilege revoked and a column changed between two
// executions.
func TestFastPathNodeMySQL2(t *testing.T) {
	node, dir := requireNode(t)
	setup := []string{
		"CREATE DATABASE db",
		"CREATE TABLE db.t (id BIGINT PRIMARY KEY, k INT NOT NULL DEFAULT 0, c CHAR(20) NOT NULL DEFAULT '', v VARCHAR(30), d DECIMAL(10,2), ts DATETIME(3), " +
			"u INT UNSIGNED, b VARBINARY(8), f DOUBLE, e ENUM('x','y'))",
		"CREATE TABLE db.other (id INT PRIMARY KEY, s TEXT)",
		"CREATE TABLE db.u8 (id TINYINT UNSIGNED PRIMARY KEY)",
		"INSERT INTO db.other VALUES (1, 'one'), (3, 'three')",
		"INSERT INTO db.u8 VALUES (3), (255)",
		"CREATE TABLE db.w (id INT PRIMARY KEY AUTO_INCREMENT, k INT NOT NULL DEFAULT 0, c VARCHAR(10))",
		"CREATE USER 'reader'@'%' IDENTIFIED BY 'pw'",
		"GRANT SELECT ON db.t TO 'reader'@'%'",
		"GRANT SELECT ON db.u8 TO 'reader'@'%'",
	}
	for i := 0; i < 200; i++ {
		setup = append(setup, fmt.Sprintf("INSERT INTO db.t VALUES (%d, %d, 'c%d', %s, %d.5, '2026-11-30 10:00:%02d.123', %d, 0x%02x, %d.25, '%s')",
			i*3, i%7, i, []string{"NULL", fmt.Sprintf("'v%d'", i)}[i%2], i, i%60, i*1000, i, i, []string{"x", "y"}[i%2]))
	}
	var transcripts [2]string
	servers := fastAndPlanned(t, setup)
	for i, s := range servers {
		host, port, _ := net.SplitHostPort(s.Addr())
		transcripts[i] = runClient(t, dir, node, "fastpath.js", host, port)
	}
	direct := servers[0].emb.DirectExecutions()
	if transcripts[0] != transcripts[1] {
		a, b := strings.Split(transcripts[0], "\n"), strings.Split(transcripts[1], "\n")
		for i := 0; i < len(a) && i < len(b); i++ {
			if a[i] != b[i] {
				lo := max(0, i-8)
				t.Fatalf("the transcripts differ at line %d:\ndirect:\n%s\nengine:\n%s", i+1,
					strings.Join(a[lo:min(len(a), i+3)], "\n"), strings.Join(b[lo:min(len(b), i+3)], "\n"))
			}
		}
		t.Fatalf("the transcripts differ in length: %d and %d lines", len(a), len(b))
	}
	if direct < 100 {
		t.Fatalf("only %d executions ran without the engine's handler", direct)
	}
	if w := servers[0].emb.DirectWrites(); w < 40 {
		t.Fatalf("only %d writes ran without the engine", w)
	}
	// 14 as text, 8 prepared.
	if n := servers[0].emb.DirectTxnStatements(); n < 22 {
		t.Fatalf("only %d of BEGIN, START TRANSACTION and COMMIT ran without the engine's handler", n)
	}
	t.Logf("%d lines alike; %d executions, %d transaction statements without the engine's handler", strings.Count(transcripts[0], "\n"), direct, servers[0].emb.DirectTxnStatements())
}
