package server

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/verso-db/verso/sqlserver"
)

// TestServerFilePrivileges: LOAD_FILE, SELECT ... INTO OUTFILE and INTO
// DUMPFILE, and LOAD DATA INFILE read and write files of the server's
// host, so they need the global FILE privilege, and reach only the folder
// of secure_file_priv, which defaults to the data dir's .verso-files and
// cannot be changed while the server runs. LOAD DATA LOCAL INFILE (the
// client sends the file) needs only INSERT on the table.
func TestServerFilePrivileges(t *testing.T) {
	dir := t.TempDir()
	s, _ := startTestServer(t, dir, Config{User: "root", Password: "rootpw", UsersFile: filepath.Join(dir, ".verso-users")})
	root := connect(t, s, "root", "rootpw", "")
	for _, q := range []string{
		"CREATE DATABASE db1",
		"CREATE TABLE db1.t (id INT PRIMARY KEY, v VARCHAR(100))",
		"INSERT INTO db1.t VALUES (1, 'one')",
		"CREATE USER 'u'@'%' IDENTIFIED BY 'pw'",
		"GRANT ALL ON db1.* TO 'u'@'%'",
		"CREATE USER 'f'@'%' IDENTIFIED BY 'pw'",
		"GRANT ALL ON db1.* TO 'f'@'%'",
		"GRANT FILE ON *.* TO 'f'@'%'",
		"SET GLOBAL local_infile = 1",
	} {
		if _, err := root.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var priv sql.NullString
	if err := root.QueryRow("SELECT @@secure_file_priv").Scan(&priv); err != nil {
		t.Fatal(err)
	}
	secure := filepath.Join(dir, ".verso-files")
	if priv.String != secure {
		t.Fatalf("@@secure_file_priv = %q, want %q", priv.String, secure)
	}
	if fi, err := os.Stat(secure); err != nil || !fi.IsDir() {
		t.Fatalf("the secure_file_priv folder: %v", err)
	}
	in := filepath.Join(secure, "in.txt")
	if err := os.WriteFile(in, []byte("2\ttwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("3\tsecret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A link inside the folder to a file outside it, and a folder whose
	// name only starts like the secure one.
	if err := os.Symlink(secret, filepath.Join(secure, "link.txt")); err != nil {
		t.Fatal(err)
	}
	sibling := secure + "-evil"
	if err := os.Mkdir(sibling, 0o755); err != nil {
		t.Fatal(err)
	}

	loadFile := func(db *sql.DB, path string) sql.NullString {
		t.Helper()
		var v sql.NullString
		if err := db.QueryRow("SELECT LOAD_FILE(?)", path).Scan(&v); err != nil {
			t.Fatalf("LOAD_FILE(%s): %v", path, err)
		}
		return v
	}
	wantErr := func(db *sql.DB, num uint16, msg, q string) {
		t.Helper()
		_, err := db.Exec(q)
		if n, _ := mysqlErrNum(err); n != num || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want error %d with %q", q, err, num, msg)
		}
	}
	const noFile = "you need (at least one of) the FILE privilege(s) for this operation"
	const secureMsg = "The MySQL server is running with the --secure-file-priv option so it cannot execute this statement"

	// Without FILE: LOAD_FILE is NULL, the others are refused, and no
	// file is written.
	u := connect(t, s, "u", "pw", "db1")
	for _, p := range []string{"/etc/passwd", in, secret} {
		if v := loadFile(u, p); v.Valid {
			t.Errorf("u: LOAD_FILE(%s) = %q, want NULL", p, v.String)
		}
	}
	for _, q := range []string{
		"SELECT * FROM t INTO OUTFILE '" + filepath.Join(outside, "u1") + "'",
		"SELECT * FROM t INTO OUTFILE '" + filepath.Join(secure, "u2") + "'",
		"SELECT v FROM t WHERE id = 1 INTO DUMPFILE '" + filepath.Join(outside, "u3") + "'",
		"SELECT v FROM t WHERE id = 1 INTO DUMPFILE '" + filepath.Join(secure, "u4") + "'",
		"LOAD DATA INFILE '" + in + "' INTO TABLE t",
		"LOAD DATA INFILE '" + secret + "' INTO TABLE t",
	} {
		wantErr(u, 1227, noFile, q)
	}
	for _, name := range []string{"u1", "u3"} {
		if _, err := os.Stat(filepath.Join(outside, name)); err == nil {
			t.Errorf("u wrote %s outside secure_file_priv", name)
		}
	}
	for _, name := range []string{"u2", "u4"} {
		if _, err := os.Stat(filepath.Join(secure, name)); err == nil {
			t.Errorf("u wrote %s without FILE", name)
		}
	}

	// With FILE: only the secure folder.
	f := connect(t, s, "f", "pw", "db1")
	if v := loadFile(f, in); v.String != "2\ttwo\n" {
		t.Errorf("f: LOAD_FILE(%s) = %q, %v", in, v.String, v.Valid)
	}
	for _, p := range []string{"/etc/passwd", secret, filepath.Join(secure, "link.txt"), filepath.Join(secure, "..", "..", filepath.Base(outside), "secret.txt")} {
		if v := loadFile(f, p); v.Valid {
			t.Errorf("f: LOAD_FILE(%s) = %q, want NULL", p, v.String)
		}
	}
	for _, q := range []string{
		"SELECT * FROM t INTO OUTFILE '" + filepath.Join(outside, "f1") + "'",
		"SELECT * FROM t INTO OUTFILE '" + filepath.Join(sibling, "f2") + "'",
		"SELECT * FROM t INTO OUTFILE '" + filepath.Join(secure, "..", "f3") + "'",
		"SELECT v FROM t WHERE id = 1 INTO DUMPFILE '" + filepath.Join(outside, "f4") + "'",
		"LOAD DATA INFILE '/etc/passwd' INTO TABLE t",
		"LOAD DATA INFILE '" + secret + "' INTO TABLE t",
		"LOAD DATA INFILE '" + filepath.Join(secure, "link.txt") + "' INTO TABLE t",
	} {
		wantErr(f, 1290, secureMsg, q)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 1 {
		t.Errorf("files outside secure_file_priv: %v", ents)
	}
	if ents, _ := os.ReadDir(sibling); len(ents) != 0 {
		t.Errorf("files in %s: %v", sibling, ents)
	}
	out := filepath.Join(secure, "out.txt")
	if _, err := f.Exec("SELECT * FROM t INTO OUTFILE '" + out + "'"); err != nil {
		t.Fatalf("INTO OUTFILE in secure_file_priv: %v", err)
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != "1\tone\n" {
		t.Errorf("out.txt: %q, %v", b, err)
	}
	if _, err := f.Exec("LOAD DATA INFILE '" + in + "' INTO TABLE t"); err != nil {
		t.Fatalf("LOAD DATA INFILE in secure_file_priv: %v", err)
	}

	// LOAD DATA LOCAL: the client reads the file, so u needs only INSERT.
	local := filepath.Join(t.TempDir(), "local.txt")
	if err := os.WriteFile(local, []byte("4\tfour\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mysql.RegisterLocalFile(local)
	defer mysql.DeregisterLocalFile(local)
	if _, err := u.Exec("LOAD DATA LOCAL INFILE '" + local + "' INTO TABLE t"); err != nil {
		t.Fatalf("u: LOAD DATA LOCAL INFILE: %v", err)
	}
	var n int
	if err := root.QueryRow("SELECT COUNT(*) FROM db1.t").Scan(&n); err != nil || n != 3 {
		t.Errorf("rows in db1.t: %d, %v, want 3 (1, and 2 and 4 loaded)", n, err)
	}

	// secure_file_priv is set at start only.
	wantErr(root, 1238, "read only", "SET GLOBAL secure_file_priv = ''")
	wantErr(root, 1238, "read only", "SET GLOBAL secure_file_priv = '/'")
}

// TestServerSecureFilePrivSettings: secure_file_priv NULL disables the
// file statements even for the superuser, a given folder must exist, and
// a server over databases in memory has no folder of its own (NULL).
func TestServerSecureFilePrivSettings(t *testing.T) {
	dir := t.TempDir()
	s, stop := startTestServer(t, dir, Config{SecureFilePriv: "NULL"})
	root := connect(t, s, "root", "", "")
	var priv sql.NullString
	for _, q := range []string{"SELECT @@secure_file_priv", "SELECT @@GLOBAL.secure_file_priv"} {
		if err := root.QueryRow(q).Scan(&priv); err != nil || priv.Valid {
			t.Fatalf("%s: %q, %v, want NULL", q, priv.String, err)
		}
	}
	in := filepath.Join(dir, "in.txt")
	if err := os.WriteFile(in, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	var v sql.NullString
	if err := root.QueryRow("SELECT LOAD_FILE(?)", in).Scan(&v); err != nil || v.Valid {
		t.Errorf("LOAD_FILE with secure_file_priv NULL: %q, %v, want NULL", v.String, err)
	}
	for _, q := range []string{
		"SELECT 1 INTO OUTFILE '" + filepath.Join(dir, "out") + "'",
		"SELECT 1 INTO DUMPFILE '" + filepath.Join(dir, "out") + "'",
	} {
		_, err := root.Exec(q)
		if n, _ := mysqlErrNum(err); n != 1290 {
			t.Errorf("%s: %v, want error 1290", q, err)
		}
	}
	// Prepared, too.
	_, err := root.Exec("SELECT ? INTO OUTFILE '"+filepath.Join(dir, "out")+"'", 1)
	if n, _ := mysqlErrNum(err); n != 1290 {
		t.Errorf("prepared INTO OUTFILE: %v, want error 1290", err)
	}
	if _, err := os.Stat(filepath.Join(dir, DefaultFilesDir)); err == nil {
		t.Errorf("%s made with secure_file_priv NULL", DefaultFilesDir)
	}
	stop()

	// A folder of one's own.
	own := t.TempDir()
	s, stop = startTestServer(t, dir, Config{SecureFilePriv: own})
	root = connect(t, s, "root", "", "")
	if _, err := root.Exec("SELECT 'hello' INTO DUMPFILE '" + filepath.Join(own, "d") + "'"); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(own, "d")); err != nil || string(b) != "hello" {
		t.Errorf("dumpfile: %q, %v", b, err)
	}
	stop()

	p, err := sqlserver.NewProvider(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	_, err = New(p, Config{Address: "127.0.0.1:0", SecureFilePriv: filepath.Join(dir, "missing")})
	if err == nil || !strings.Contains(err.Error(), "secure_file_priv") || !strings.Contains(err.Error(), "NULL") {
		t.Errorf("a missing folder: %v", err)
	}

	mp := sqlserver.NewMemoryProvider()
	defer mp.Close()
	ms, err := New(mp, Config{Address: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	go ms.Start()
	defer ms.Shutdown(5 * time.Second)
	if err := connect(t, ms, "root", "", "").QueryRow("SELECT @@secure_file_priv").Scan(&priv); err != nil || priv.Valid {
		t.Errorf("in memory: @@secure_file_priv = %q, %v, want NULL", priv.String, err)
	}
}
