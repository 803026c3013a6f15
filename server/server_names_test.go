package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServerDatabaseNames: CREATE DATABASE refuses the names the data dir
// uses for itself (anything beginning with '.': the users file
// .verso-users, the secure_file_priv folder .verso-files, .verso) and
// names MySQL or the file system cannot take, with MySQL's error 1102 (or
// 1059 for one too long) and no folder left behind; the server starts
// again afterwards with its accounts. Unusual but valid names work.
func TestServerDatabaseNames(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{User: "root", Password: "pw", UsersFile: filepath.Join(dir, ".verso-users")}
	s, stop := startTestServer(t, dir, cfg)
	root := connect(t, s, "root", "pw", "")
	if _, err := root.Exec("CREATE USER 'u'@'%' IDENTIFIED BY 'upw'"); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{
		".verso-users", ".verso", ".verso-files", ".hidden", ".", "..",
		" ", "   ", "\t", "trailing ", "a\x00b", "a\nb", "\xff\xfe", "ok\xc3",
		"a/b", `a\b`, "../up", "/abs",
	} {
		_, err := root.Exec("CREATE DATABASE `" + strings.ReplaceAll(name, "`", "``") + "`")
		if n, state := mysqlErrNum(err); n != 1102 || state != "42000" || !strings.Contains(err.Error(), "Incorrect database name") {
			t.Errorf("CREATE DATABASE %q: %v, want error 1102 (42000)", name, err)
		}
	}
	long := strings.Repeat("é", 65)
	_, err = root.Exec("CREATE DATABASE `" + long + "`")
	if n, _ := mysqlErrNum(err); n != 1059 || !strings.Contains(err.Error(), "too long") {
		t.Errorf("CREATE DATABASE of 65 characters: %v, want error 1059", err)
	}
	after, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) {
		t.Errorf("the data dir held %v, now %v", before, after)
	}
	valid := []string{"my-db", "Ünïcödé", "a b", "x.y", strings.Repeat("é", 64), "123"}
	for _, name := range valid {
		if _, err := root.Exec("CREATE DATABASE `" + name + "`"); err != nil {
			t.Errorf("CREATE DATABASE %q: %v", name, err)
		}
	}
	stop()

	s, _ = startTestServer(t, dir, cfg)
	if err := connect(t, s, "u", "upw", "").Ping(); err != nil {
		t.Fatalf("after a restart, u cannot log in: %v", err)
	}
	root = connect(t, s, "root", "pw", "")
	for _, name := range valid {
		if _, err := root.Exec("USE `" + name + "`"); err != nil {
			t.Errorf("after a restart, USE %q: %v", name, err)
		}
	}
}
