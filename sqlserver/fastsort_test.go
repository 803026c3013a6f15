package sqlserver

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

// TestFastSortAgainstEngine runs ORDER BY and DISTINCT ... ORDER BY of
// one column, ascending and descending, over columns of every kind the
// fast path sorts by key (signed and unsigned integers, strings in
// utf8mb4_0900_bin, in case- and accent-insensitive and PAD SPACE
// collations, in utf8mb3) and some it leaves to the engine (latin1,
// DOUBLE), with many duplicates, NULLs, trailing spaces and multi-byte
// characters, through the fast path and through the engine's planning,
// and requires the same rows in the same order: ties in the scan's
// order, NULLs first ascending and last descending.
func TestFastSortAgainstEngine(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, `CREATE TABLE srt (id INT PRIMARY KEY, i INT, u INT UNSIGNED, ti TINYINT, bi BIGINT, ub BIGINT UNSIGNED,
		s VARCHAR(10), c CHAR(10) NOT NULL DEFAULT '', ci VARCHAR(10) COLLATE utf8mb4_0900_ai_ci,
		mb VARCHAR(10) COLLATE utf8mb4_bin, m3 VARCHAR(10) CHARACTER SET utf8mb3 COLLATE utf8mb3_general_ci,
		l1 VARCHAR(10) CHARACTER SET latin1, f DOUBLE)`)
	strs := []string{"", "a", "A", "á", "a ", "a\t", "ab", "b", "B ", "ß", "ss", "z", "é", "😀", "ä", "aa"}
	rng := rand.New(rand.NewSource(7))
	lit := func(s string) string {
		if rng.Intn(8) == 0 {
			return "NULL"
		}
		return "'" + s + "'"
	}
	num := func(vals ...int64) string {
		if rng.Intn(8) == 0 {
			return "NULL"
		}
		return fmt.Sprint(vals[rng.Intn(len(vals))])
	}
	for id := 0; id < 400; id++ {
		s := func() string { return strs[rng.Intn(len(strs))] }
		c := strings.TrimRight(s(), " ")
		env.exec(ctx, fmt.Sprintf("INSERT INTO srt VALUES (%d, %s, %s, %s, %s, %s, %s, '%s', %s, %s, %s, %s, %s)", id,
			num(-5, -1, 0, 1, 7, -2147483648, 2147483647), num(0, 1, 9, 4294967295), num(-128, -1, 0, 3, 127),
			num(-9223372036854775808, -3, 0, 5, 9223372036854775807), num(0, 2, 1<<62, 1<<63-1),
			lit(s()), c, lit(s()), lit(s()), lit(s()), lit(strs[rng.Intn(13)]), num(-1, 0, 2, 3)))
	}
	env.exec(ctx, "UPDATE srt SET ub = 18446744073709551615 WHERE id % 37 = 0")
	_, f := newFastEngine(env.p)
	cols := []string{"i", "u", "ti", "bi", "ub", "s", "c", "ci", "mb", "m3", "l1", "f"}
	byKey := map[string]bool{}
	for _, col := range cols {
		for _, q := range []string{
			"SELECT id, %s FROM srt WHERE id BETWEEN ? AND ? ORDER BY %s",
			"SELECT id, %s FROM srt WHERE id BETWEEN ? AND ? ORDER BY %s DESC",
			"SELECT id FROM srt WHERE id BETWEEN ? AND ? ORDER BY %[2]s",
			"SELECT DISTINCT %s FROM srt WHERE id BETWEEN ? AND ? ORDER BY %s",
			"SELECT DISTINCT %s FROM srt WHERE id BETWEEN ? AND ? ORDER BY %s DESC",
			"SELECT DISTINCT %s, id FROM srt WHERE id BETWEEN ? AND ? ORDER BY %s",
		} {
			q = fmt.Sprintf(q, col, col)
			for i := 0; i < 12; i++ {
				lo := rng.Intn(420) - 10
				hi := lo + rng.Intn(200)
				if i == 0 {
					lo, hi = -1, 1000
				}
				b := map[string]*querypb.BindVariable{"v1": sqltypes.Int64BindVariable(int64(lo)), "v2": sqltypes.Int64BindVariable(int64(hi))}
				want := runEngine(env, ctx, q, b)
				got, used := runFast(env, ctx, f, q, b)
				if d := sameResult(ctx, want, got); d != "" {
					t.Fatalf("%s with [%d, %d]: %s", q, lo, hi, d)
				}
				if !used {
					t.Fatalf("%s: the fast path did not answer", q)
				}
				if want.err != "" {
					t.Fatalf("%s: %s", q, want.err)
				}
			}
		}
		r := runEngine(env, ctx, "SELECT "+col+" FROM srt WHERE id = ?", map[string]*querypb.BindVariable{"v1": sqltypes.Int64BindVariable(1)})
		if r.err != "" {
			t.Fatal(r.err)
		}
		kind, _ := sortKeyKindOf(r.sch[0].Type)
		byKey[col] = kind != sortNone
	}
	// The columns sorted by key are the ones the fast sort claims.
	for col, want := range map[string]bool{"i": true, "u": true, "ti": true, "bi": true, "ub": true, "s": true, "c": true,
		"ci": true, "mb": true, "m3": true, "l1": false, "f": false} {
		if byKey[col] != want {
			t.Errorf("column %s sorted by key: %v, want %v", col, byKey[col], want)
		}
	}
}

// TestSortKeyKind: which column types sort by key, and where equal keys
// mean equal values.
func TestSortKeyKind(t *testing.T) {
	for _, c := range []struct {
		t     sql.Type
		kind  sortKeyKind
		exact bool
	}{
		{types.Int8, sortSigned, true},
		{types.Int64, sortSigned, true},
		{types.Uint24, sortUnsigned, true},
		{types.Uint64, sortUnsigned, true},
		{types.MustCreateString(sqltypes.VarChar, 20, sql.Collation_utf8mb4_0900_bin), sortBytes, true},
		{types.MustCreateString(sqltypes.Char, 20, sql.Collation_utf8mb4_0900_ai_ci), sortWeights, false},
		{types.MustCreateString(sqltypes.VarChar, 20, sql.Collation_utf8mb4_bin), sortWeights, false},
		{types.MustCreateString(sqltypes.Text, 20, sql.Collation_utf8mb3_general_ci), sortWeights, false},
		{types.MustCreateString(sqltypes.VarChar, 20, sql.Collation_latin1_swedish_ci), sortNone, false},
		{types.MustCreateBinary(sqltypes.VarBinary, 20), sortNone, false},
		{types.Float64, sortNone, false},
		{types.Year, sortNone, false},
		{types.MustCreateDecimalType(10, 2), sortNone, false},
	} {
		kind, exact := sortKeyKindOf(c.t)
		if kind != c.kind || exact != c.exact {
			t.Errorf("%s: kind %d exact %v, want %d %v", c.t, kind, exact, c.kind, c.exact)
		}
	}
}
