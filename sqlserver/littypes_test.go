package sqlserver

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// TestRetypedLiteralsModel compares string columns of several types and
// collations with random literals through the server's engine (which
// retypes the literals: littypes.go) and through the engine without
// verso's rules, over the same data: every query must return the same
// rows (a null-safe comparison the rows of an equality, see below).
func TestRetypedLiteralsModel(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := env.session("")
	env.exec(ctx, "CREATE DATABASE db")
	ctx = env.session("db")
	env.exec(ctx, `CREATE TABLE t (id INT PRIMARY KEY,
		v VARCHAR(6) COLLATE utf8mb4_0900_bin,
		ci VARCHAR(6) COLLATE utf8mb4_0900_ai_ci,
		tx TEXT,
		ch CHAR(4),
		l1 VARCHAR(6) CHARACTER SET latin1,
		bn VARBINARY(6))`)
	rng := rand.New(rand.NewPCG(3, 9))
	pool := []string{"", "a", "A", "ab", "b", "B ", "é", "e", "E", "zz", "a ", "abcdef", "abcdefg", "日本", "ß", "ss"}
	for i := range 120 {
		v := pool[rng.IntN(len(pool))]
		if len([]rune(v)) > 6 {
			v = string([]rune(v)[:6])
		}
		ch := strings.TrimRight(v, " ")
		if len([]rune(ch)) > 4 {
			ch = string([]rune(ch)[:4])
		}
		l1 := v
		if strings.ContainsAny(l1, "日本") {
			l1 = "x"
		}
		env.exec(ctx, fmt.Sprintf("INSERT INTO t VALUES (%d, '%s', '%s', '%s', '%s', '%s', '%s')", i, v, v, v, ch, l1, v))
	}
	plain := sqle.NewDefault(env.p)
	t.Cleanup(func() { plain.Close() })
	run := func(e *sqle.Engine, q string) string {
		c := env.session("db").WithQuery(q)
		_, iter, _, err := e.Query(c, q)
		if err != nil {
			return "error: " + err.Error()
		}
		rows, err := sql.RowIterToRows(c, iter)
		if err != nil {
			return "error: " + err.Error()
		}
		return strings.Join(formatRowsList(rows), ";")
	}
	ops := []string{"=", "<", "<=", ">", ">=", "<=>", "!="}
	cols := []string{"v", "ci", "tx", "ch", "l1", "bn"}
	lits := append(append([]string{}, pool...), "abcdefgh", "A COLLATE utf8mb4_0900_bin", "_latin1'e'", "_binary'a'", "'é' COLLATE utf8mb4_0900_ai_ci")
	for range 400 {
		col, op, lit := cols[rng.IntN(len(cols))], ops[rng.IntN(len(ops))], lits[rng.IntN(len(lits))]
		plainLit := !strings.Contains(lit, "'") && !strings.Contains(lit, "COLLATE")
		if plainLit {
			lit = "'" + lit + "'"
		} else if strings.HasPrefix(lit, "A COLLATE") {
			lit = "'A' COLLATE utf8mb4_0900_bin"
		}
		for _, q := range []string{
			fmt.Sprintf("SELECT id FROM t WHERE %s %s %s ORDER BY id", col, op, lit),
			fmt.Sprintf("SELECT id FROM t WHERE %s %s %s ORDER BY id", lit, op, col),
			fmt.Sprintf("SELECT COUNT(*) FROM t WHERE %s %s %s AND id > 10", col, op, lit),
		} {
			// The engine's <=> between a column and a literal of
			// another string type ignores the column's collation (`ci
			// <=> 'E'` misses 'e'); with no NULL in the data it must
			// match as = does, which a retyped (plain) literal gets
			// right.
			ref := q
			if plainLit {
				ref = strings.Replace(q, " <=> ", " = ", 1)
			}
			if got, want := run(env.e, q), run(plain, ref); got != want {
				t.Fatalf("%s:\n got %s\nwant %s", q, got, want)
			}
		}
	}
}

// formatRowsList prints rows one by one.
func formatRowsList(rows []sql.Row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fmt.Sprint(r)
	}
	return out
}

// TestRetypedLiteral checks which literals the rule retypes.
func TestRetypedLiteral(t *testing.T) {
	ctx := sql.NewEmptyContext()
	text := expression.NewGetField(0, types.Text, "c", false)
	varchar := expression.NewGetField(0, types.MustCreateString(sqltypes.VarChar, 3, sql.Collation_Default), "c", false)
	lit := func(s string) sql.Expression { return expression.NewLiteral(s, types.LongText) }
	for _, c := range []struct {
		lit, col sql.Expression
		want     bool
	}{
		{lit("c"), text, true},
		{lit("abc"), varchar, true},
		{lit("abcd"), varchar, false}, // longer than the column's values
		{expression.NewLiteral([]byte("c"), types.LongBlob), text, false},
		{expression.NewLiteral(int64(1), types.Int64), text, false},
		{expression.NewLiteral("c", types.MustCreateString(sqltypes.Text, 1000, sql.Collation_latin1_swedish_ci)), text, false},
		{lit("c"), expression.NewGetField(0, types.LongBlob, "b", false), false},
		{lit("c"), expression.NewGetField(0, types.LongText, "c", false), false}, // already alike
		{lit("c"), lit("d"), false},
	} {
		got, ok := retypedLiteral(ctx, c.lit, c.col)
		if ok != c.want {
			t.Errorf("%s against %s: retyped %v, want %v", c.lit, c.col, ok, c.want)
		}
		if ok && !types.TypesEqual(got.Type(ctx), c.col.Type(ctx)) {
			t.Errorf("%s against %s: type %s", c.lit, c.col, got.Type(ctx))
		}
	}
}
