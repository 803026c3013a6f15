package driver

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"reflect"
	"testing"
)

// TestMultiStatements: with multistatements=true a query of several
// statements gives a result set for each that returns rows
// (NextResultSet), Exec runs them all, Close runs those not read, and an error of a later statement is
// the result set's; without it such a query is a syntax error (1064), as
// go-sql-driver/mysql has it.
func TestMultiStatements(t *testing.T) {
	db, dir := withDatabase(t, Config{MultiStatements: true})
	mustExec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10)); INSERT INTO t VALUES (1, 'a'); INSERT INTO t VALUES (2, 'b'), (3, 'c')")
	if n := queryInt(t, db, "SELECT COUNT(*) FROM t"); n != 3 {
		t.Fatalf("Exec of three statements: %d rows", n)
	}

	rows, err := db.Query("SELECT id FROM t ORDER BY id; SELECT v, id FROM t WHERE id = 2; UPDATE t SET v = 'z' WHERE id = 3; SELECT COUNT(*) FROM t WHERE v = 'z'")
	if err != nil {
		t.Fatal(err)
	}
	sets := scanSets(t, rows)
	rows.Close()
	want := [][][]any{
		{{int64(1)}, {int64(2)}, {int64(3)}},
		{{"b", int64(2)}},
		// The UPDATE's is no result set, as with go-sql-driver/mysql.
		{{int64(1)}},
	}
	if !reflect.DeepEqual(sets, want) {
		t.Fatalf("result sets %v, want %v", sets, want)
	}

	// A query whose first statements return no rows starts at the first
	// that does.
	rows, err = db.Query("UPDATE t SET v = 'y' WHERE id = 3; SELECT v FROM t WHERE id = 3")
	if err != nil {
		t.Fatal(err)
	}
	if got := scanSet(t, rows); !reflect.DeepEqual(got, [][]any{{"y"}}) || rows.NextResultSet() {
		t.Fatalf("UPDATE; SELECT: %v", got)
	}
	rows.Close()

	// Rows closed after the first set: the others still run.
	rows, err = db.Query("SELECT 1; DELETE FROM t WHERE id = 1; DELETE FROM t WHERE id = 2")
	if err != nil {
		t.Fatal(err)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	if n := queryInt(t, db, "SELECT COUNT(*) FROM t"); n != 1 {
		t.Fatalf("after closing rows early: %d rows, want the DELETEs run", n)
	}

	// A failing statement: Exec stops there, with its error; as a result
	// set, its error is Rows.Err's.
	_, err = db.Exec("INSERT INTO t VALUES (10, 'x'); INSERT INTO t VALUES (10, 'y'); INSERT INTO t VALUES (11, 'z')")
	wantNumber(t, "Exec with a duplicate second statement", err, 1062)
	if n := queryInt(t, db, "SELECT COUNT(*) FROM t WHERE id >= 10"); n != 1 {
		t.Fatalf("after the failed Exec: %d rows, want the first statement's", n)
	}
	rows, err = db.Query("SELECT 1; SELECT * FROM missing")
	if err != nil {
		t.Fatal(err)
	}
	scanSet(t, rows)
	if rows.NextResultSet() {
		t.Fatal("moved to a result set that failed")
	}
	wantNumber(t, "the second result set", rows.Err(), 1146)
	rows.Close()

	// AllRowsAffected gives each statement's count.
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	err = c.Raw(func(dc any) error {
		res, err := dc.(driver.ExecerContext).ExecContext(context.Background(), "UPDATE t SET v = 'q'; INSERT INTO t VALUES (20, 'a'), (21, 'b')", nil)
		if err != nil {
			return err
		}
		if got := res.(Result).AllRowsAffected(); !reflect.DeepEqual(got, []int64{2, 2}) {
			t.Errorf("AllRowsAffected: %v", got)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	single := openDB(t, dsnOf(dir, Config{Database: "shop"}))
	_, err = single.Exec("SELECT 1; SELECT 2")
	wantNumber(t, "two statements without multistatements", err, 1064)
	_, err = single.Query("DELETE FROM t; SELECT 2")
	wantNumber(t, "two statements without multistatements", err, 1064)
	if n := queryInt(t, single, "SELECT COUNT(*) FROM t"); n == 0 {
		t.Fatal("the refused query ran its first statement")
	}
	// A trailing ; is one statement.
	if n := queryInt(t, single, "SELECT 7;"); n != 7 {
		t.Fatal("SELECT 7;")
	}
}

// scanSets reads every result set of rows (scanSet).
func scanSets(t testing.TB, rows *sql.Rows) [][][]any {
	t.Helper()
	var sets [][][]any
	for {
		sets = append(sets, scanSet(t, rows))
		if !rows.NextResultSet() {
			break
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return sets
}

func scanSet(t testing.TB, rows *sql.Rows) [][]any {
	t.Helper()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, vals)
	}
	return out
}

// TestCallResultSets: a CALL of a stored procedure gives a result set for
// each of its statements that returns rows, as go-sql-driver/mysql has
// them from a server, with or without multistatements and with
// arguments; the statements after it in a query of several follow, and
// the connection goes on.
func TestCallResultSets(t *testing.T) {
	for _, multi := range []bool{false, true} {
		db, _ := withDatabase(t, Config{MultiStatements: multi})
		db.SetMaxOpenConns(1)
		mustExec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))")
		mustExec(t, db, "INSERT INTO t VALUES (1, 'a'), (2, 'b')")
		mustExec(t, db, `CREATE PROCEDURE p(IN lim INT) BEGIN
			SELECT id FROM t WHERE id <= lim ORDER BY id;
			UPDATE t SET v = 'z' WHERE id = 1;
			SELECT v, id FROM t ORDER BY id;
		END`)
		readAll := func(q string, args ...any) [][][]any {
			t.Helper()
			rows, err := db.Query(q, args...)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			defer rows.Close()
			return scanSets(t, rows)
		}
		want := [][][]any{{{int64(1)}, {int64(2)}}, {{"z", int64(1)}, {"b", int64(2)}}}
		if got := readAll("CALL p(5)"); !reflect.DeepEqual(got, want) {
			t.Fatalf("multi=%v: CALL p(5): %v, want %v", multi, got, want)
		}
		want[0] = want[0][:1]
		if got := readAll("CALL p(?)", 1); !reflect.DeepEqual(got, want) {
			t.Fatalf("multi=%v: CALL p(?): %v, want %v", multi, got, want)
		}
		mustExec(t, db, "CALL p(0)")
		if n := queryInt(t, db, "SELECT COUNT(*) FROM t WHERE v = 'z'"); n != 1 {
			t.Fatalf("multi=%v: after the CALLs: %d", multi, n)
		}
		if multi {
			got := readAll("CALL p(1); SELECT 9")
			want := [][][]any{{{int64(1)}}, {{"z", int64(1)}, {"b", int64(2)}}, {{int64(9)}}}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("CALL p(1); SELECT 9: %v, want %v", got, want)
			}
		}
	}
}
