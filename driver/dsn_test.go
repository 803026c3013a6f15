package driver

import (
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseDSN(t *testing.T) {
	for _, tc := range []struct {
		dsn  string
		want Config
	}{
		{"file:///data", Config{Dir: "/data"}},
		{"file:///data/", Config{Dir: "/data"}},
		{"file://localhost/srv/a/../data", Config{Dir: "/srv/data"}},
		{"file:///my%20data?database=shop", Config{Dir: "/my data", Database: "shop"}},
		{"file:///d?commitname=Jane%20Doe&commitemail=jane@example.com", Config{Dir: "/d", CommitName: "Jane Doe", CommitEmail: "jane@example.com"}},
		{"file:///d?commitname=Jane+Doe&commitemail=jane%40example.com", Config{Dir: "/d", CommitName: "Jane Doe", CommitEmail: "jane@example.com"}},
		{"file:///d?database=shop/feature&multistatements=true", Config{Dir: "/d", Database: "shop/feature", MultiStatements: true}},
		{"file:///d?multistatements=0", Config{Dir: "/d"}},
		{"file:///d?", Config{Dir: "/d"}},
	} {
		got, err := ParseDSN(tc.dsn)
		if err != nil {
			t.Errorf("ParseDSN(%q): %v", tc.dsn, err)
			continue
		}
		if *got != tc.want {
			t.Errorf("ParseDSN(%q) = %+v, want %+v", tc.dsn, *got, tc.want)
		}
		// FormatDSN gives a DSN that parses back to the same settings.
		again, err := ParseDSN(got.FormatDSN())
		if err != nil || *again != *got {
			t.Errorf("ParseDSN(FormatDSN(%+v) = %q) = %+v, %v", *got, got.FormatDSN(), again, err)
		}
	}
}

func TestParseDSNErrors(t *testing.T) {
	for _, tc := range []struct {
		dsn, says string
	}{
		{"", "not a file:// URL"},
		{"/abs/path", "not a file:// URL"},
		{"data/dir", "not a file:// URL"},
		{"file:data/dir", "relative"},
		{"file://data/dir", `"data" is read as a host`},
		{"file://", "no data directory"},
		{"mysql://root@localhost:3306/shop", `the scheme is "mysql"`},
		{"root:pw@tcp(localhost:3306)/shop", "file:///absolute/path"},
		{"file://jane:pw@localhost/d", "user or password"},
		{"file:///d#x", "fragment"},
		{"file:///d?databse=shop", `unknown parameter "databse"`},
		{"file:///d?Database=shop", "did you mean database?"},
		{"file:///d?parseTime=true", "the parameters are commitemail, commitname, database, multistatements"},
		{"file:///d?database=a&database=b", "given 2 times"},
		{"file:///d?multistatements=maybe", "give true or false"},
		{"file:///d?commitname=Jane", "both commitname and commitemail"},
		{"file:///d?commitemail=jane@example.com", "both commitname and commitemail"},
		{"file:///d?database=%zz", "the parameters"},
	} {
		_, err := ParseDSN(tc.dsn)
		if err == nil {
			t.Errorf("ParseDSN(%q): no error, want one saying %q", tc.dsn, tc.says)
			continue
		}
		if !errors.Is(err, ErrBadDSN) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("ParseDSN(%q): %v; want ErrBadDSN saying %q", tc.dsn, err, tc.says)
		}
	}
}

// TestOpenBadDSN: sql.Open reports a bad DSN itself (the driver is a
// DriverContext), before any connection.
func TestOpenBadDSN(t *testing.T) {
	for _, dsn := range []string{"file:relative", "file:///d?nope=1", "tcp://localhost"} {
		db, err := sql.Open("verso", dsn)
		if err == nil {
			db.Close()
			t.Errorf("sql.Open(%q): no error", dsn)
		} else if !errors.Is(err, ErrBadDSN) {
			t.Errorf("sql.Open(%q): %v, want ErrBadDSN", dsn, err)
		}
	}
}

// TestDataDirCreated: a missing data directory is made, and CREATE
// DATABASE makes a database folder in it; DROP DATABASE removes it.
func TestDataDirCreated(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "not", "yet")
	db := openDB(t, dsnOf(dir, Config{}))
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("the data directory was not made: %v", err)
	}
	mustExec(t, db, "CREATE DATABASE shop")
	if _, err := os.Stat(filepath.Join(dir, "shop", ".verso")); err != nil {
		t.Fatalf("CREATE DATABASE made no folder: %v", err)
	}
	if got := queryString(t, db, "SELECT schema_name FROM information_schema.schemata WHERE schema_name = 'shop'"); got != "shop" {
		t.Fatalf("information_schema.schemata: %q", got)
	}
	mustExec(t, db, "DROP DATABASE shop")
	if _, err := os.Stat(filepath.Join(dir, "shop")); !os.IsNotExist(err) {
		t.Fatalf("DROP DATABASE left the folder: %v", err)
	}
}

// TestDatabaseParameter: a DSN naming a database that does not exist
// fails on its first connection with MySQL's 1049; db/branch selects a
// branch.
func TestDatabaseParameter(t *testing.T) {
	db, dir := withDatabase(t, Config{})
	mustExec(t, db, "CALL dolt_branch('feature')")
	nope := openDB(t, dsnOf(dir, Config{Database: "nope"}))
	for range 3 {
		wantNumber(t, "database=nope", nope.Ping(), 1049)
	}
	// The failed connections left the data directory open for the others.
	if n := queryInt(t, db, "SELECT COUNT(*) FROM dolt_branches"); n != 2 {
		t.Fatalf("%d branches", n)
	}
	feature := openDB(t, dsnOf(dir, Config{Database: "shop/feature"}))
	if got := queryString(t, feature, "SELECT active_branch()"); got != "feature" {
		t.Fatalf("database=shop/feature: active_branch() = %q", got)
	}
}
