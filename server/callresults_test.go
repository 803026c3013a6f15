package server

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// readSets reads every result set of rows, each printed as its column
// names then its rows ("a,b: 1 x | 2 y").
func readSets(t *testing.T, rows *sql.Rows) []string {
	t.Helper()
	var sets []string
	for {
		cols, err := rows.Columns()
		if err != nil {
			t.Fatal(err)
		}
		var vals []string
		for rows.Next() {
			cells := make([]sql.NullString, len(cols))
			ptrs := make([]any, len(cols))
			for i := range cells {
				ptrs[i] = &cells[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			row := make([]string, len(cells))
			for i, c := range cells {
				row[i] = cmpOrNull(c)
			}
			vals = append(vals, strings.Join(row, " "))
		}
		if len(cols) > 0 {
			sets = append(sets, strings.Join(cols, ",")+": "+strings.Join(vals, " | "))
		}
		if !rows.NextResultSet() {
			break
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return sets
}

func cmpOrNull(c sql.NullString) string {
	if !c.Valid {
		return "NULL"
	}
	return c.String
}

// TestCallResultSets: a CALL answers with a result set for each
// statement of the procedure that answers with rows, as MySQL's does,
// for clients with and without multiple statements a query; the
// connection goes on as usual after it, a multi-statement query's
// statements after the CALL run, and an error after some result sets
// reaches the client after them. A prepared CALL answers with its last
// result set, as the engine alone did.
func TestCallResultSets(t *testing.T) {
	s, _ := startTestServer(t, t.TempDir(), Config{})
	open := func(params string) *sql.DB {
		db := connect(t, s, "root", "", "shop?"+params)
		db.SetMaxOpenConns(1)
		return db
	}
	setup := connect(t, s, "root", "", "")
	for _, q := range []string{
		"CREATE DATABASE shop",
		"CREATE TABLE shop.t (id INT PRIMARY KEY, price DECIMAL(6,2), at DATETIME(3))",
		"INSERT INTO shop.t VALUES (1, 2.50, '2026-01-02 03:04:05.678'), (2, NULL, NULL)",
		`CREATE PROCEDURE shop.report(IN lim INT) BEGIN
			SELECT id, price FROM t WHERE id <= lim ORDER BY id;
			UPDATE t SET price = price + 1 WHERE id = 1;
			SELECT COUNT(*) AS n, MAX(at) AS latest FROM t;
			SELECT price FROM t WHERE id = 1;
		END`,
		"CREATE PROCEDURE shop.quiet() BEGIN UPDATE t SET id = id WHERE id < 0; END",
		`CREATE PROCEDURE shop.fails() BEGIN
			SELECT 'before' AS step;
			SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no stock', MYSQL_ERRNO = 1644;
		END`,
	} {
		if _, err := setup.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	for _, params := range []string{"", "multiStatements=true", "interpolateParams=true"} {
		t.Run("params="+params, func(t *testing.T) {
			db := open(params)
			if _, err := db.Exec("UPDATE t SET price = 2.50 WHERE id = 1"); err != nil {
				t.Fatal(err)
			}
			// With interpolateParams the driver sends its arguments in
			// the query's text.
			var rows *sql.Rows
			var err error
			if params == "interpolateParams=true" {
				rows, err = db.Query("CALL report(?)", 9)
			} else {
				rows, err = db.Query("CALL report(9)")
			}
			if err != nil {
				t.Fatal(err)
			}
			got := readSets(t, rows)
			want := []string{"id,price: 1 2.50 | 2 NULL", "n,latest: 2 2026-01-02 03:04:05.678", "price: 3.50"}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("CALL report:\n got %q\nwant %q", got, want)
			}
			// The connection goes on: a statement, a CALL without rows.
			var n int
			if err := db.QueryRow("SELECT COUNT(*) FROM t").Scan(&n); err != nil || n != 2 {
				t.Fatalf("after the CALL: %d, %v", n, err)
			}
			if _, err := db.Exec("CALL quiet()"); err != nil {
				t.Fatalf("CALL quiet: %v", err)
			}
			// The error after a result set.
			rows, err = db.Query("CALL fails()")
			if err == nil {
				var sets []string
				for {
					cols, _ := rows.Columns()
					for rows.Next() {
						sets = append(sets, strings.Join(cols, ","))
					}
					if !rows.NextResultSet() {
						break
					}
				}
				err = rows.Err()
				rows.Close()
				if fmt.Sprint(sets) != "[step]" {
					t.Errorf("CALL fails: result sets %q, want [step]", sets)
				}
			}
			var me *mysql.MySQLError
			if !errors.As(err, &me) || me.Number != 1644 || me.Message != "no stock" {
				t.Fatalf("CALL fails: %v, want error 1644 no stock", err)
			}
			if err := db.QueryRow("SELECT 7").Scan(&n); err != nil || n != 7 {
				t.Fatalf("after the failed CALL: %d, %v", n, err)
			}
		})
	}

	// A multi-statement query goes on after the CALL's result sets.
	db := open("multiStatements=true")
	rows, err := db.QueryContext(context.Background(), "UPDATE t SET price = 2.50 WHERE id = 1; CALL report(1); SELECT 'after' AS x; CALL quiet(); SELECT 2 AS y")
	if err != nil {
		t.Fatal(err)
	}
	got := readSets(t, rows)
	want := []string{"id,price: 1 2.50", "n,latest: 2 2026-01-02 03:04:05.678", "price: 3.50", "x: after", "y: 2"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("multi-statement query:\n got %q\nwant %q", got, want)
	}
	// A prepared CALL (the binary protocol) answers with its last result
	// set only: the protocol library sends one a prepared statement.
	rows, err = open("").Query("CALL report(?)", 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := readSets(t, rows); fmt.Sprint(got) != "[price: 4.50]" {
		t.Fatalf("prepared CALL: %q", got)
	}
	// A client that did not ask for multiple statements still gets one
	// statement a query.
	if _, err := open("").Exec("SELECT 1; SELECT 2"); err == nil {
		t.Fatal("two statements in one query ran for a client that did not ask for it")
	}
}
