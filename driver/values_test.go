package driver

import (
	"database/sql"
	"encoding/json"
	"math"
	"reflect"
	"testing"
	"time"
)

// TestValueTypes: a row of every column type goes in through arguments
// and comes back as the Go types columns.go lists, with the column types
// database/sql reports; NULLs come back as nil; UPDATE and DELETE by
// argument find the row. TIME and JSON come back in the engine's text
// (what the server sends): microseconds, and JSON without spaces.
func TestValueTypes(t *testing.T) {
	db, _ := withDatabase(t, Config{})
	mustExec(t, db, `CREATE TABLE v (
		id BIGINT PRIMARY KEY,
		ti TINYINT, si SMALLINT, mi MEDIUMINT, i INT NOT NULL, bi BIGINT,
		ub BIGINT UNSIGNED, ui INT UNSIGNED,
		f FLOAT, d DOUBLE, amount DECIMAL(10,2),
		b BOOL,
		c CHAR(3), vc VARCHAR(20), tx TEXT,
		bin BINARY(3), vb VARBINARY(10), bl BLOB,
		dt DATE, dtm DATETIME(6), ts TIMESTAMP, tm TIME, y YEAR,
		j JSON, e ENUM('small','large'), st SET('a','b','c'), bt BIT(10)
	)`)
	when := time.Date(2026, 8, 19, 13, 14, 15, 123456000, time.UTC)
	in := []any{
		int64(1),
		int8(-128), int16(-32768), int32(-8388608), int32(2147483647), int64(math.MinInt64),
		uint64(math.MaxUint64), uint32(4294967295),
		float32(1.5), 2.25, "12345678.91",
		true,
		"abc", "héllo, wörld", "a longer text",
		[]byte{0, 1, 2}, []byte{0xff, 0x00, 0xfe}, []byte("blob\x00bytes"),
		when, when, when, "13:14:15", 2026,
		json.RawMessage(`{"a": [1, 2]}`), "large", "a,c", uint64(0b1010000001),
	}
	placeholders := "?" + repeat(", ?", len(in)-1)
	mustExec(t, db, "INSERT INTO v VALUES ("+placeholders+")", in...)
	mustExec(t, db, "INSERT INTO v (id, i) VALUES (?, ?)", 2, 0)

	want := []any{
		int64(1),
		int64(-128), int64(-32768), int64(-8388608), int64(2147483647), int64(math.MinInt64),
		uint64(math.MaxUint64), uint64(4294967295),
		float64(1.5), 2.25, "12345678.91",
		int64(1),
		"abc", "héllo, wörld", "a longer text",
		[]byte{0, 1, 2}, []byte{0xff, 0x00, 0xfe}, []byte("blob\x00bytes"),
		time.Date(2026, 8, 19, 0, 0, 0, 0, time.UTC), when, time.Date(2026, 8, 19, 13, 14, 15, 0, time.UTC), "13:14:15.000000", int64(2026),
		`{"a":[1,2]}`, "large", "a,c", uint64(0b1010000001),
	}
	typeNames := []string{
		"BIGINT",
		"TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT",
		"UNSIGNED BIGINT", "UNSIGNED INT",
		"FLOAT", "DOUBLE", "DECIMAL",
		"TINYINT",
		"CHAR", "VARCHAR", "TEXT",
		"BINARY", "VARBINARY", "BLOB",
		"DATE", "DATETIME", "TIMESTAMP", "TIME", "YEAR",
		"JSON", "ENUM", "SET", "BIT",
	}
	rows, err := db.Query("SELECT * FROM v WHERE id = ?", 1)
	if err != nil {
		t.Fatal(err)
	}
	got := scanAll(t, rows)
	if len(got) != 1 {
		t.Fatalf("got %d rows, want 1", len(got))
	}
	for i, w := range want {
		if g := got[0][i]; !reflect.DeepEqual(g, w) {
			t.Errorf("column %d: got %T %#v, want %T %#v", i, g, g, w, w)
		}
	}

	// The column types, from the same query.
	rows, err = db.Query("SELECT * FROM v WHERE id = ?", 1)
	if err != nil {
		t.Fatal(err)
	}
	cts, err := rows.ColumnTypes()
	if err != nil {
		t.Fatal(err)
	}
	rows.Close()
	for i, ct := range cts {
		if ct.DatabaseTypeName() != typeNames[i] {
			t.Errorf("column %s: DatabaseTypeName %q, want %q", ct.Name(), ct.DatabaseTypeName(), typeNames[i])
		}
		null, ok := ct.Nullable()
		if wantNull := ct.Name() != "id" && ct.Name() != "i"; !ok || null != wantNull {
			t.Errorf("column %s: Nullable() = %v, %v; want %v", ct.Name(), null, ok, wantNull)
		}
		st := ct.ScanType()
		switch w := want[i].(type) {
		case []byte:
			if st != reflect.TypeOf(w) {
				t.Errorf("column %s: ScanType %v, want []byte", ct.Name(), st)
			}
		default:
			wt := reflect.TypeOf(w)
			if null {
				wt = map[reflect.Type]reflect.Type{
					reflect.TypeOf(int64(0)):    reflect.TypeOf(sql.NullInt64{}),
					reflect.TypeOf(uint64(0)):   reflect.TypeOf(sql.Null[uint64]{}),
					reflect.TypeOf(float64(0)):  reflect.TypeOf(sql.NullFloat64{}),
					reflect.TypeOf(""):          reflect.TypeOf(sql.NullString{}),
					reflect.TypeOf(time.Time{}): reflect.TypeOf(sql.NullTime{}),
				}[wt]
			}
			if st != wt {
				t.Errorf("column %s: ScanType %v, want %v", ct.Name(), st, wt)
			}
		}
		if ct.Name() == "amount" {
			if p, s, ok := ct.DecimalSize(); !ok || p != 10 || s != 2 {
				t.Errorf("column amount: DecimalSize() = %d, %d, %v", p, s, ok)
			}
		}
	}

	// NULLs are nil; the values scan into the sql.Null types.
	rows, err = db.Query("SELECT * FROM v WHERE id = 2")
	if err != nil {
		t.Fatal(err)
	}
	got = scanAll(t, rows)
	for i, v := range got[0] {
		if name := cts[i].Name(); name != "id" && name != "i" && v != nil {
			t.Errorf("column %s of the row of NULLs: got %#v", name, v)
		}
	}
	var (
		ub  sql.Null[uint64]
		dtm sql.NullTime
		dec sql.NullString
		j   []byte
	)
	if err := db.QueryRow("SELECT ub, dtm, amount, j FROM v WHERE id = 1").Scan(&ub, &dtm, &dec, &j); err != nil {
		t.Fatal(err)
	}
	if ub.V != math.MaxUint64 || !dtm.Time.Equal(when) || dec.String != "12345678.91" || string(j) != `{"a":[1,2]}` {
		t.Errorf("scanned %v %v %v %s", ub, dtm, dec, j)
	}

	// UPDATE and DELETE find rows by arguments of each kind.
	res := mustExec(t, db, "UPDATE v SET vc = ? WHERE bl = ? AND dtm = ? AND ub = ? AND amount = ?", nil, []byte("blob\x00bytes"), when, uint64(math.MaxUint64), "12345678.91")
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("UPDATE by arguments: %d rows", n)
	}
	if n := queryInt(t, db, "SELECT COUNT(*) FROM v WHERE vc IS NULL"); n != 2 {
		t.Fatalf("after the UPDATE, %d rows with vc NULL", n)
	}
	var s *string
	res = mustExec(t, db, "DELETE FROM v WHERE id = ? OR vc = ?", int16(2), s)
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("DELETE: %d rows", n)
	}
}

func repeat(s string, n int) string {
	out := ""
	for range n {
		out += s
	}
	return out
}

// scanAll reads rows into their driver values.
func scanAll(t testing.TB, rows *sql.Rows) [][]any {
	t.Helper()
	defer rows.Close()
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
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestArguments: arguments of every accepted Go type select back as the
// values they stand for.
func TestArguments(t *testing.T) {
	db, _ := withDatabase(t, Config{})
	type myInt int32
	n := 7
	for _, tc := range []struct {
		arg  any
		want any
	}{
		{int(-3), int64(-3)},
		{myInt(5), int64(5)},
		{&n, int64(7)},
		{uint8(200), uint64(200)}, // the engine types 200 UNSIGNED TINYINT
		{uint64(math.MaxUint64), uint64(math.MaxUint64)},
		{3.5, 3.5},
		{false, int64(0)},
		{"it's", "it's"},
		{[]byte("\xff\x00"), []byte("\xff\x00")},
		{json.RawMessage(`[1]`), "[1]"},
		{sql.NullString{}, nil},
		{sql.NullInt64{Int64: 9, Valid: true}, int64(9)},
		{(*int)(nil), nil},
	} {
		var got any
		if err := db.QueryRow("SELECT ?", tc.arg).Scan(&got); err != nil {
			t.Errorf("SELECT ? with %T %v: %v", tc.arg, tc.arg, err)
			continue
		}
		if s, ok := got.([]byte); ok {
			if _, wantBytes := tc.want.([]byte); !wantBytes {
				got = string(s)
			}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("SELECT ? with %T %v: got %T %#v, want %T %#v", tc.arg, tc.arg, got, got, tc.want, tc.want)
		}
	}
	if _, err := db.Exec("SELECT ?", sql.Named("a", 1)); err == nil {
		t.Error("a named argument: no error")
	}
	if _, err := db.Exec("SELECT ?", struct{}{}); err == nil {
		t.Error("a struct argument: no error")
	}
	if _, err := db.Exec("SELECT ?", math.NaN()); err == nil {
		t.Error("NaN: no error")
	}
}

// TestExecResult: Exec reports the rows a statement affected and the
// auto-increment value it inserted.
func TestExecResult(t *testing.T) {
	db, _ := withDatabase(t, Config{})
	mustExec(t, db, "CREATE TABLE a (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
	for i, want := range []int64{1, 2, 3} {
		res := mustExec(t, db, "INSERT INTO a (v) VALUES (?)", i)
		if id, err := res.LastInsertId(); err != nil || id != want {
			t.Fatalf("insert %d: LastInsertId %d, %v", i, id, err)
		}
	}
	res := mustExec(t, db, "UPDATE a SET v = 0 WHERE id >= ?", 2)
	if n, err := res.RowsAffected(); err != nil || n != 2 {
		t.Fatalf("UPDATE: RowsAffected %d, %v", n, err)
	}
	res = mustExec(t, db, "DELETE FROM a")
	if n, _ := res.RowsAffected(); n != 3 {
		t.Fatalf("DELETE: RowsAffected %d", n)
	}
}
