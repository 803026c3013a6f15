package main

import (
	"bytes"
	"database/sql"
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
