package systables

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// dolt_test_run(['name or group', ...]) runs the tests of dolt_tests, as
// Dolt's: a row per test run,
//
//	test_name, test_group_name, query, status, message   text NOT NULL
//
// status PASS or FAIL, message why it failed (Dolt's words). No argument,
// or '*', runs every test; each argument otherwise names a test or a
// group, whose tests run in the order of their names (an argument that
// names neither is Dolt's error "could not find tests for argument: x").
// A test's query runs in the session, read-only (package sqlserver runs
// it); its assertion compares, with its comparator (==, !=, <, >, <=, >=):
//
//	expected_rows          the number of rows with an integer
//	expected_columns       the number of columns with an integer
//	expected_single_value  the one cell of a one-row, one-column result
//	                       with a value read as the cell's type: an
//	                       integer, a decimal, a date or time, or text
//
// Where Dolt fails a cell of a type it does not compare (a boolean, a
// NULL: "Type <nil> is not supported. Open an issue ..."), verso compares
// it: a boolean as the integer it is, a NULL equal to a NULL assertion
// value only.

const TestRunName = "dolt_test_run"

// TestRunSchema is dolt_test_run's.
var TestRunSchema = sql.Schema{
	textCol(TestRunName, "test_name", false, false),
	textCol(TestRunName, "test_group_name", false, false),
	textCol(TestRunName, "query", false, false),
	textCol(TestRunName, "status", false, false),
	textCol(TestRunName, "message", false, false),
}

// Test is a row of dolt_tests. Group and Value are nil for NULL.
type Test struct {
	Name       string
	Group      *string
	Query      string
	Assertion  string
	Comparator string
	Value      *string
}

// QueryRunner runs a test's query and returns its columns and rows.
type QueryRunner func(ctx *sql.Context, query string) (sql.Schema, []sql.Row, error)

// SelectTests returns the tests args name (names and groups; none or '*':
// all), in that order, tests of one argument by name.
func SelectTests(all []Test, args []string) ([]Test, error) {
	if len(args) == 0 {
		return all, nil
	}
	var out []Test
	for _, a := range args {
		if a == "*" && len(all) > 0 {
			out = append(out, all...)
			continue
		}
		n := len(out)
		for _, t := range all {
			if t.Name == a || t.Group != nil && *t.Group == a {
				out = append(out, t)
			}
		}
		if len(out) == n {
			return nil, fmt.Errorf("could not find tests for argument: %s", a)
		}
	}
	return out, nil
}

// RunTests runs tests and returns dolt_test_run's rows.
func RunTests(ctx *sql.Context, tests []Test, run QueryRunner) []sql.Row {
	out := make([]sql.Row, len(tests))
	for i, t := range tests {
		group := ""
		if t.Group != nil {
			group = *t.Group
		}
		status, msg := "PASS", ""
		if err := runTest(ctx, t, run); err != nil {
			status, msg = "FAIL", err.Error()
		}
		out[i] = sql.Row{t.Name, group, t.Query, status, msg}
	}
	return out
}

// runTest runs one test: nil if it passes, why not otherwise.
func runTest(ctx *sql.Context, t Test, run QueryRunner) error {
	sch, rows, err := run(ctx, t.Query)
	if err != nil {
		return err
	}
	switch t.Assertion {
	case "expected_rows":
		return compareCount(t, int64(len(rows)))
	case "expected_columns":
		return compareCount(t, int64(len(sch)))
	case "expected_single_value":
		switch {
		case len(sch) != 1:
			return fmt.Errorf("expected_single_value expects exactly one cell. Received multiple columns")
		case len(rows) > 1:
			return fmt.Errorf("expected_single_value expects exactly one cell. Received multiple rows")
		case len(rows) == 0:
			return fmt.Errorf("expected_single_value expects exactly one cell. Received 0 rows")
		}
		return compareCell(ctx, t, sch[0].Type, rows[0][0])
	}
	return fmt.Errorf("unknown assertion type: %s", t.Assertion)
}

// comparatorWords are the assertion messages' names of the comparators.
var comparatorWords = map[string]string{
	"==": "equal to", "!=": "not equal to", "<": "less than", ">": "greater than",
	"<=": "less than or equal to", ">=": "greater than or equal to",
}

// holds reports whether c (the sign of got compared with want) satisfies
// the comparator.
func holds(comparator string, c int) (bool, error) {
	switch comparator {
	case "==":
		return c == 0, nil
	case "!=":
		return c != 0, nil
	case "<":
		return c < 0, nil
	case ">":
		return c > 0, nil
	case "<=":
		return c <= 0, nil
	case ">=":
		return c >= 0, nil
	}
	return false, fmt.Errorf("unknown comparator: %s", comparator)
}

// failed is the message of an assertion that does not hold.
func failed(t Test, want, got string) error {
	return fmt.Errorf("Assertion failed: %s %s %s, got %s", t.Assertion, comparatorWords[t.Comparator], want, got)
}

func valueText(v *string) string {
	if v == nil {
		return "NULL"
	}
	return *v
}

// compareCount asserts on a count.
func compareCount(t Test, got int64) error {
	if t.Value == nil {
		return failed(t, "NULL", strconv.FormatInt(got, 10))
	}
	want, err := strconv.ParseInt(strings.TrimSpace(*t.Value), 10, 64)
	if err != nil {
		return fmt.Errorf("cannot run assertion on non integer value: %s", *t.Value)
	}
	ok, err := holds(t.Comparator, compareValues(got, want))
	if err != nil || ok {
		return err
	}
	return failed(t, *t.Value, strconv.FormatInt(got, 10))
}

func compareValues[T int64 | uint64 | float64 | string](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// compareCell asserts on a single value v of type typ.
func compareCell(ctx *sql.Context, t Test, typ sql.Type, v any) error {
	if v == nil || t.Value == nil {
		// A NULL is equal to a NULL only, and neither less nor greater.
		equal := v == nil && t.Value == nil
		if t.Comparator == "==" && equal || t.Comparator == "!=" && !equal {
			return nil
		}
		got := "NULL"
		if v != nil {
			got = cellText(ctx, typ, v)
		}
		return failed(t, valueText(t.Value), got)
	}
	want := *t.Value
	got := cellText(ctx, typ, v)
	var c int
	switch {
	case types.IsInteger(typ) || types.IsBit(typ):
		g, _, err := types.Int64.Convert(ctx, v)
		w, perr := strconv.ParseInt(strings.TrimSpace(want), 10, 64)
		if err != nil || perr != nil {
			return fmt.Errorf("Could not compare non integer value '%s', with %s", want, got)
		}
		c = compareValues(g.(int64), w)
	case types.IsDecimal(typ) || types.IsFloat(typ):
		g, gok := new(big.Rat).SetString(got)
		w, wok := new(big.Rat).SetString(strings.TrimSpace(want))
		if !gok || !wok {
			return fmt.Errorf("Could not compare non decimal value '%s', with %s", want, got)
		}
		c = g.Cmp(w)
	case types.IsTime(typ) || types.IsDateType(typ):
		g, ok := v.(time.Time)
		w, _, err := types.DatetimeMaxPrecision.Convert(ctx, want)
		if !ok || err != nil {
			return fmt.Errorf("%s does not appear to be a valid date", want)
		}
		c = g.Compare(w.(time.Time))
	default:
		c = compareValues(got, want)
	}
	ok, err := holds(t.Comparator, c)
	if err != nil || ok {
		return err
	}
	return failed(t, want, got)
}

// cellText returns the value as the client would read it.
func cellText(ctx *sql.Context, typ sql.Type, v any) string {
	s, err := typ.SQL(ctx, nil, v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return s.ToString()
}
