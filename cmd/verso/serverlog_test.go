package main

import (
	"bytes"
	"database/sql"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSQLServerLogLevel: the server's log on stderr has, at the default
// level, its start and stop and nothing of a healthy client's
// connections and statements (a failed one included); at --log-level
// debug (or log_level: debug in the config file), a line per connection
// opened and closed and per statement, and still none of the engine's own
// connection lines.
func TestSQLServerLogLevel(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "logdb")
	var out, errOut bytes.Buffer
	if code := run([]string{"init", "--name", "T", "--email", "t@x", dir}, &out, &errOut); code != 0 {
		t.Fatalf("init: exit %d: %s", code, errOut.String())
	}
	cfg := filepath.Join(t.TempDir(), "server.yaml")
	if err := os.WriteFile(cfg, []byte("log_level: debug\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	serve := func(args ...string) string {
		t.Helper()
		var sout, serr syncBuffer
		stop := make(chan os.Signal, 1)
		exited := make(chan int, 1)
		// No Unix socket: whether another server holds the default one
		// would change the log.
		go func() { exited <- serveSQL(dir, append(args, "--port", "0", "--socket", ""), &sout, &serr, stop) }()
		var addr string
		for deadline := time.Now().Add(10 * time.Second); addr == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if _, a, ok := strings.Cut(sout.String(), "listening on "); ok && strings.Contains(a, "\n") {
				addr, _, _ = strings.Cut(a, "\n")
			}
		}
		if addr == "" {
			t.Fatalf("%v: the server did not start: %s", args, serr.String())
		}
		db, err := sql.Open("mysql", "root@tcp("+addr+")/logdb")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec("SELECT 1"); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec("SELECT * FROM missing"); err == nil {
			t.Fatal("a query of a missing table succeeded")
		}
		db.Close()
		stop <- os.Interrupt
		if code := <-exited; code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, serr.String())
		}
		return serr.String()
	}

	log := serve()
	lines := strings.Split(strings.TrimSpace(log), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `level=INFO msg="verso sql-server listening" addr=127.0.0.1:`) ||
		!strings.Contains(lines[0], "data_dir="+dir) || !strings.Contains(lines[1], `level=INFO msg="shutting down"`) {
		t.Errorf("the default log is not the start and stop lines:\n%s", log)
	}

	for _, args := range [][]string{{"--log-level", "debug"}, {"--config", cfg}} {
		log := serve(args...)
		for _, want := range []string{
			`level=INFO msg="verso sql-server listening"`,
			`level=DEBUG msg="connection opened" conn=`,
			`level=DEBUG msg="logged in"`,
			`level=DEBUG msg=statement conn=`,
			`query="SELECT * FROM missing"`,
			"errno=1146",
			`level=DEBUG msg="connection closed" conn=`,
		} {
			if !strings.Contains(log, want) {
				t.Errorf("%v: the log lacks %q:\n%s", args, want, log)
			}
		}
		for _, bad := range []string{"NewConnection", "ConnectionClosed", "level=WARN", "level=ERROR", `time="`} {
			if strings.Contains(log, bad) {
				t.Errorf("%v: the log has %q:\n%s", args, bad, log)
			}
		}
	}
}

func TestParseLogLevel(t *testing.T) {
	for in, want := range map[string]slog.Level{
		"debug": slog.LevelDebug, "INFO": slog.LevelInfo, "warn": slog.LevelWarn, "warning": slog.LevelWarn,
		"error": slog.LevelError, " Trace ": slog.LevelDebug - 4,
	} {
		if got, err := parseLogLevel(in); err != nil || got != want {
			t.Errorf("%q: %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := parseLogLevel("verbose"); err == nil {
		t.Error("verbose: no error")
	}
}
