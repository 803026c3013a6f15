package server

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// garble overwrites bytes of the file path from offset off.
func garble(t *testing.T, path string, off int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(bytes.Repeat([]byte{0xA5}, 16), off); err != nil {
		t.Fatal(err)
	}
}

// TestServerDamagedDatabase: a data dir where one database's manifest and
// another's journal are garbled. The server starts and serves the healthy
// database; the log names each damaged one and what is wrong; using a
// damaged one (USE, a query, DROP DATABASE) fails with an error that says
// it is damaged and what to do, without the server's paths; CREATE
// DATABASE of its name says it exists.
func TestServerDamagedDatabase(t *testing.T) {
	dir := t.TempDir()
	s, stop := startTestServer(t, dir, Config{})
	root := connect(t, s, "root", "", "")
	for _, q := range []string{
		"CREATE DATABASE good", "CREATE TABLE good.t (id INT PRIMARY KEY)", "INSERT INTO good.t VALUES (1)",
		"CREATE DATABASE badman", "CREATE TABLE badman.t (id INT PRIMARY KEY)", "INSERT INTO badman.t VALUES (1)",
		"CREATE DATABASE badjournal", "CREATE TABLE badjournal.t (id INT PRIMARY KEY)", "INSERT INTO badjournal.t VALUES (1)",
	} {
		if _, err := root.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	stop()
	garble(t, filepath.Join(dir, "badman", ".verso", "chunks", "MANIFEST"), 20)
	journals, err := filepath.Glob(filepath.Join(dir, "badjournal", ".verso", "chunks", "*.journal"))
	if err != nil || len(journals) == 0 {
		t.Fatalf("journals: %v, %v", journals, err)
	}
	for _, j := range journals {
		garble(t, j, 0)
	}

	var log bytes.Buffer
	s, _ = startTestServer(t, dir, Config{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	root = connect(t, s, "root", "", "")
	var n int
	if err := root.QueryRow("SELECT COUNT(*) FROM good.t").Scan(&n); err != nil || n != 1 {
		t.Fatalf("the healthy database: %d, %v", n, err)
	}
	for _, name := range []string{"badman", "badjournal"} {
		var line string
		for _, l := range strings.Split(log.String(), "\n") {
			if strings.Contains(l, "database="+name) {
				line = l
			}
		}
		if !strings.Contains(line, "level=WARN") || !strings.Contains(line, "damaged") || !strings.Contains(line, "corrupt") {
			t.Errorf("no warning about %s in the log:\n%s", name, log.String())
		}
		for _, q := range []string{"USE " + name, "SELECT * FROM " + name + ".t", "DROP DATABASE " + name} {
			_, err := root.Exec(q)
			num, _ := mysqlErrNum(err)
			msg := ""
			if err != nil {
				msg = err.Error()
			}
			if num != 1194 || !strings.Contains(msg, "'"+name+"' is damaged") || !strings.Contains(msg, "restore") || strings.Contains(msg, dir) {
				t.Errorf("%s: %v, want error 1194 saying %s is damaged, what to do, and no server path", q, err, name)
			}
		}
		_, err := root.Exec("CREATE DATABASE " + name)
		if num, _ := mysqlErrNum(err); num != 1007 {
			t.Errorf("CREATE DATABASE %s: %v, want error 1007 (exists)", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "badman", ".verso", "chunks", "MANIFEST")); err != nil {
		t.Errorf("the damaged database's files: %v", err)
	}
	rows, err := root.Query("SHOW DATABASES")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var name string
		rows.Scan(&name)
		names = append(names, name)
	}
	if !strings.Contains(strings.Join(names, " "), "good") {
		t.Errorf("SHOW DATABASES: %v", names)
	}
}
