package main

import (
	"bytes"
	"database/sql"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
)

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestSQLServer(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mydb")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"-C", dir, "init", "--name", "T", "--email", "t@x"}, &out, &errOut); code != 0 {
		t.Fatalf("init: exit %d: %s", code, errOut.String())
	}
	t.Setenv(envName, "Server Identity")
	t.Setenv(envEmail, "server@example.com")
	var sout, serr syncBuffer
	stop := make(chan os.Signal, 1)
	exited := make(chan int, 1)
	go func() { exited <- serveSQL(dir, []string{"--port", "0"}, &sout, &serr, stop) }()
	var addr string
	for deadline := time.Now().Add(10 * time.Second); addr == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, a, ok := strings.Cut(sout.String(), "listening on "); ok && strings.Contains(a, "\n") {
			addr, _, _ = strings.Cut(a, "\n")
		}
	}
	if addr == "" {
		t.Fatalf("server did not start: %s", serr.String())
	}
	c, err := sql.Open("mysql", "root@tcp("+addr+")/mydb")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, q := range []string{
		"CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))",
		"INSERT INTO t VALUES (1, 'one')",
	} {
		if _, err := c.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var v string
	if err := c.QueryRow("SELECT v FROM t WHERE id = 1").Scan(&v); err != nil || v != "one" {
		t.Fatalf("select: %q, %v", v, err)
	}
	// Commits over SQL record the identity of $VERSO_AUTHOR_NAME/EMAIL.
	if _, err := c.Exec("CALL dolt_commit('-Am', 'add t')"); err != nil {
		t.Fatal(err)
	}
	var who, email string
	if err := c.QueryRow("SELECT committer, email FROM dolt_log LIMIT 1").Scan(&who, &email); err != nil || who != "Server Identity" || email != "server@example.com" {
		t.Fatalf("committer of a commit over SQL: %q <%q>, %v", who, email, err)
	}
	// A client still connected, idle, does not hold up a graceful
	// shutdown: the server closes its connection.
	held, err := c.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	stop <- os.Interrupt
	select {
	case code := <-exited:
		if code != 0 {
			t.Fatalf("server exit %d: %s", code, serr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("server did not stop")
	}
	if err := held.PingContext(t.Context()); err == nil {
		t.Fatal("a connection survived the shutdown")
	}
	if !strings.Contains(sout.String(), "shutting down") {
		t.Fatalf("no shutdown message: %q", sout.String())
	}
}

// TestSQLServerSecureFilePriv: secure_file_priv is .verso-files of the
// data dir by default (made at start), .verso/files of a database served
// alone, or what --secure-file-priv or the config file's secure_file_priv
// says (NULL disables file statements).
func TestSQLServerSecureFilePriv(t *testing.T) {
	secureFilePriv := func(addr string) sql.NullString {
		t.Helper()
		db, err := sql.Open("mysql", "root@tcp("+addr+")/")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var v sql.NullString
		if err := db.QueryRow("SELECT @@secure_file_priv").Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if v := secureFilePriv(startServerIn(t, "", "--data-dir", data, "--port", "0")); v.String != filepath.Join(data, ".verso-files") {
		t.Errorf("--data-dir: @@secure_file_priv = %q", v.String)
	}
	if fi, err := os.Stat(filepath.Join(data, ".verso-files")); err != nil || !fi.IsDir() {
		t.Errorf("the data dir's .verso-files: %v", err)
	}
	if v := secureFilePriv(startServerIn(t, "", "--data-dir", data, "--port", "0", "--secure-file-priv", "NULL")); v.Valid {
		t.Errorf("--secure-file-priv NULL: @@secure_file_priv = %q", v.String)
	}
	own := filepath.Join(dir, "own")
	if err := os.Mkdir(own, 0o755); err != nil {
		t.Fatal(err)
	}
	if v := secureFilePriv(startServerIn(t, dir, "--data-dir", "data", "--port", "0", "--secure-file-priv", "own")); v.String != own {
		t.Errorf("--secure-file-priv own: @@secure_file_priv = %q, want %q", v.String, own)
	}
	cfg := filepath.Join(dir, "server.yaml")
	if err := os.WriteFile(cfg, []byte("data_dir: data\nsecure_file_priv: own\nlistener: {port: 0}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if v := secureFilePriv(startServerIn(t, "", "--config", cfg)); v.String != own {
		t.Errorf("config secure_file_priv: @@secure_file_priv = %q, want %q", v.String, own)
	}
	var code int
	var serr bytes.Buffer
	if code = serveSQL("", []string{"--data-dir", data, "--port", "0", "--secure-file-priv", filepath.Join(dir, "missing")}, io.Discard, &serr, nil); code != 1 || !strings.Contains(serr.String(), "secure_file_priv") {
		t.Errorf("a missing folder: exit %d, %s", code, serr.String())
	}

	repo := filepath.Join(dir, "mydb")
	if err := os.Mkdir(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"-C", repo, "init", "--name", "T", "--email", "t@x"}, &out, &errOut); code != 0 {
		t.Fatalf("init: exit %d: %s", code, errOut.String())
	}
	if v := secureFilePriv(startServerIn(t, repo, "--port", "0")); v.String != filepath.Join(repo, ".verso", "files") {
		t.Errorf("a database served alone: @@secure_file_priv = %q", v.String)
	}
}

// TestSQLServerDamagedDatabase: with --data-dir, a database whose
// manifest is garbled does not keep the server from starting: the others
// are served, stderr has a warning naming it, and using it says it is
// damaged.
func TestSQLServerDamagedDatabase(t *testing.T) {
	data := t.TempDir()
	for _, name := range []string{"good", "bad"} {
		var out, errOut bytes.Buffer
		if code := run([]string{"-C", filepath.Join(data, name), "init", "--name", "T", "--email", "t@x"}, &out, &errOut); code != 0 {
			t.Fatalf("init %s: exit %d: %s", name, code, errOut.String())
		}
	}
	if err := os.WriteFile(filepath.Join(data, "bad", ".verso", "chunks", "MANIFEST"), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	var sout, serr syncBuffer
	stop := make(chan os.Signal, 1)
	exited := make(chan int, 1)
	go func() { exited <- serveSQL("", []string{"--data-dir", data, "--port", "0"}, &sout, &serr, stop) }()
	var addr string
	for deadline := time.Now().Add(10 * time.Second); addr == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, a, ok := strings.Cut(sout.String(), "listening on "); ok && strings.Contains(a, "\n") {
			addr, _, _ = strings.Cut(a, "\n")
		}
		select {
		case code := <-exited:
			t.Fatalf("server exited with %d: %s", code, serr.String())
		default:
		}
	}
	if addr == "" {
		t.Fatalf("server did not start: %s", serr.String())
	}
	defer func() {
		stop <- os.Interrupt
		<-exited
	}()
	if w := serr.String(); !strings.Contains(w, "level=WARN") || !strings.Contains(w, "database=bad") || !strings.Contains(w, "damaged") {
		t.Errorf("stderr has no warning about bad: %q", w)
	}
	db, err := sql.Open("mysql", "root@tcp("+addr+")/")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE good.t (id INT PRIMARY KEY)"); err != nil {
		t.Fatalf("the healthy database: %v", err)
	}
	if _, err := db.Exec("USE bad"); err == nil || !strings.Contains(err.Error(), "'bad' is damaged") || strings.Contains(err.Error(), data) {
		t.Errorf("USE bad: %v", err)
	}
}
