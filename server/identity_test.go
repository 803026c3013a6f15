package server

import (
	"bufio"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/verso-db/verso/sqlserver"
)

// TestCommitIdentity: the committer and email that a commit made over SQL
// records, for the superuser and for an account of host '%', both over the
// loopback, are Dolt's (testdata/dolt/identity.golden, recorded by
// scripts/record-dolt-identity.sh): root root@localhost, jane jane@%.
func TestCommitIdentity(t *testing.T) {
	f, err := os.Open("testdata/dolt/identity.golden")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := sc.Text(); l != "" && !strings.HasPrefix(l, "#") {
			user, got, _ := strings.Cut(l, "\t")
			want[user] = got
		}
	}
	s, err := New(sqlserver.NewMemoryProvider(), Config{Address: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	defer s.Close()
	// One connection each: USE holds for the statements after it.
	open := func(user string) *sql.DB {
		db, err := sql.Open("mysql", fmt.Sprintf("%s@tcp(%s)/", user, s.Addr()))
		if err != nil {
			t.Fatal(err)
		}
		db.SetMaxOpenConns(1)
		t.Cleanup(func() { db.Close() })
		return db
	}
	root := open("root")
	for _, q := range []string{"CREATE DATABASE d", "CREATE TABLE d.t (id INT PRIMARY KEY)", "USE d", "CALL dolt_commit('-Am', 'x')", "CREATE USER jane@'%' IDENTIFIED BY 'pw'", "GRANT ALL ON *.* TO jane@'%'"} {
		if _, err := root.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	check := func(user string, db *sql.DB) {
		t.Helper()
		var got string
		if err := db.QueryRow("SELECT CONCAT(committer, ' ', email) FROM d.dolt_log LIMIT 1").Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want[user] {
			t.Errorf("%s's commit records %q; Dolt records %q", user, got, want[user])
		}
	}
	check("root", root)
	jane := open("jane:pw")
	for _, q := range []string{"USE d", "INSERT INTO t VALUES (1)", "CALL dolt_commit('-am', 'y')"} {
		if _, err := jane.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	check("jane", jane)
}
