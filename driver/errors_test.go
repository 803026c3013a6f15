package driver

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// TestErrorNumbers: statements fail with MySQL's numbers, SQLSTATEs and
// messages, as the server sends them; code written for
// go-sql-driver/mysql's MySQLError reads them the same way.
func TestErrorNumbers(t *testing.T) {
	db, _ := withDatabase(t, Config{})
	mustExec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, u VARCHAR(10) UNIQUE, v INT NOT NULL)")
	mustExec(t, db, "INSERT INTO t VALUES (1, 'a', 1)")
	for _, tc := range []struct {
		q     string
		num   uint16
		state string
		says  string
	}{
		{"INSERT INTO t VALUES (1, 'b', 1)", 1062, "23000", "uplicate"},
		{"INSERT INTO t VALUES (2, 'a', 1)", 1062, "23000", "uplicate"},
		{"SELECT * FROM missing", 1146, "42S02", "missing"},
		{"SELECT nope FROM t", 1054, "42S22", "nope"},
		{"SELEC 1", 1064, "42000", "near 'SELEC 1' at line 1"},
		{"INSERT INTO t VALUES (3, 'c', NULL)", 1048, "23000", "v"},
		{"CREATE TABLE t (id INT PRIMARY KEY)", 1050, "42S01", "t"},
		{"USE nowhere", 1049, "42000", "nowhere"},
		{"CALL dolt_checkout('no-such-branch')", 1105, "HY000", "no-such-branch"},
		{"  ", 1065, "42000", "Query was empty"},
	} {
		_, err := db.Exec(tc.q)
		var me *MySQLError
		if !errors.As(err, &me) {
			t.Errorf("%s: %T %v, want a *MySQLError", tc.q, err, err)
			continue
		}
		if me.Number != tc.num || string(me.SQLState[:]) != tc.state || !strings.Contains(me.Message, tc.says) {
			t.Errorf("%s: %v; want %d (%s) saying %q", tc.q, err, tc.num, tc.state, tc.says)
		}
		if !errors.Is(err, &MySQLError{Number: tc.num}) {
			t.Errorf("%s: errors.Is does not match the number", tc.q)
		}
		// The same fields as go-sql-driver/mysql's.
		theirs := mysql.MySQLError{Number: me.Number, SQLState: me.SQLState, Message: me.Message}
		if theirs.Error() != me.Error() {
			t.Errorf("%s: %q, go-sql-driver/mysql prints %q", tc.q, me.Error(), theirs.Error())
		}
	}
}
