package main

import (
	"bytes"
	"database/sql"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestReadConfigFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`# Dolt's names
data_dir: data
user:
  name: admin
  password: pw
listener:
  host: 0.0.0.0
  port: 3307
  max_connections: 7
  read_timeout_millis: 1500
  write_timeout_millis: 2500
  connect_timeout_millis: 3000
behavior:
  max_query_memory: 512M
  cache_size: 1G
  branch_activity_tracking: true
secure_file_priv: files
log_level: debug
`)
	var c serverConfig
	if err := readConfigFile(path, &c); err != nil {
		t.Fatal(err)
	}
	want := serverConfig{Host: "0.0.0.0", Port: 3307, DataDir: filepath.Join(dir, "data"), User: "admin", Password: "pw",
		MaxConnections: 7, ReadTimeout: 1500 * time.Millisecond, WriteTimeout: 2500 * time.Millisecond,
		SecureFilePriv: filepath.Join(dir, "files"), ConnectTimeout: 3 * time.Second, MaxQueryMemory: 512 << 20,
		CacheSize: 1 << 30, LogLevel: slog.LevelDebug, BranchActivityTracking: true}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("got %+v, want %+v", c, want)
	}
	for _, tc := range []struct{ text, msg string }{
		{"listener:\n  prot: 1\n", "field prot not found"},
		{"listener:\n  port: 70000\n", "between 0 and 65535"},
		{"listener:\n  max_connections: -1\n", "must not be negative"},
		{"listener:\n  connect_timeout_millis: 0\n", "must be positive"},
		{"behavior:\n  max_query_memory: lots\n", "is not a size"},
		{"behavior:\n  cache_size: -1\n", "behavior.cache_size: \"-1\" is not a size"},
		{"user: [", "config file"},
		{"secure_file_priv: ''\n", "secure_file_priv is empty"},
		{"secure_file_priv: [a]\n", "a folder or NULL"},
		{"log_level: loud\n", "log_level: \"loud\" is not a log level"},
		{"log_format: xml\n", "log_format is \"xml\"; give text or json"},
		{"behavior: {dolt_transaction_commit: true}\n", "behavior.dolt_transaction_commit: verso does not make a commit"},
		{"behavior: {event_scheduler: sometimes}\n", "give ON, OFF or DISABLED"},
		{"jwks: [{name: x}]\n", "jwks: verso does not authenticate"},
		{"metrics: {port: 9090}\n", "metrics.port: verso serves no metrics"},
		{"remotesapi: {port: 50051}\n", "remotesapi.port"},
		{"cluster: {standby_remotes: []}\n", "cluster: verso has no cluster"},
		{"branch_control_file: config.yaml\n", "branch_control_file: verso has no branch permissions"},
		{"listener: {back_log: -1}\n", "listener.back_log is -1"},
		{"user_session_vars: [{vars: {a: 1}}]\n", "has no name"},
	} {
		write(tc.text)
		if err := readConfigFile(path, &serverConfig{}); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%q: %v, want an error containing %q", tc.text, err, tc.msg)
		}
	}
	write("secure_file_priv: NULL\n")
	if err := readConfigFile(path, &c); err != nil || c.SecureFilePriv != "NULL" {
		t.Errorf("secure_file_priv: NULL: %q, %v", c.SecureFilePriv, err)
	}
	write("")
	if err := readConfigFile(path, &serverConfig{}); err != nil {
		t.Fatalf("empty file: %v", err)
	}
}

func TestParseByteSize(t *testing.T) {
	for in, want := range map[string]int64{
		"0": 0, "65536": 65536, "1K": 1024, "512M": 512 << 20, "1G": 1 << 30, "2g": 2 << 30,
		"1GiB": 1 << 30, "64MB": 64 << 20, " 3 M ": 3 << 20, "1T": 1 << 40,
	} {
		if got, err := parseByteSize(in); err != nil || got != want {
			t.Errorf("%q: %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "lots", "-1", "1X", "1.5G", "99999999999T"} {
		if _, err := parseByteSize(in); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

// TestSQLServerConfig starts verso sql-server from a config file with a
// flag overriding it, logs in as the configured superuser, and checks the
// refusal of a password-less superuser on every interface.
func TestSQLServerConfig(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "server.yaml")
	if err := os.WriteFile(cfg, []byte("data_dir: data\nuser: {name: admin, password: pw}\nlistener: {host: 127.0.0.1, port: 3306, max_connections: 10}\nbehavior: {branch_activity_tracking: true}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var sout, serr syncBuffer
	stop := make(chan os.Signal, 1)
	exited := make(chan int, 1)
	go func() { exited <- serveSQL("", []string{"--config", cfg, "--port", "0"}, &sout, &serr, stop) }()
	var addr string
	for deadline := time.Now().Add(10 * time.Second); addr == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, a, ok := strings.Cut(sout.String(), "listening on "); ok && strings.Contains(a, "\n") {
			addr, _, _ = strings.Cut(a, "\n")
		}
	}
	if addr == "" {
		t.Fatalf("server did not start: %s", serr.String())
	}
	if !strings.Contains(sout.String(), filepath.Join(dir, "data")) {
		t.Fatalf("server does not serve the config's data dir: %s", sout.String())
	}
	db, err := sql.Open("mysql", "admin:pw@tcp("+addr+")/")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE DATABASE fromconfig"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	// branch_activity_tracking: dolt_branch_activity shows the reads and
	// writes of each branch, and the sessions on it.
	db, err = sql.Open("mysql", "admin:pw@tcp("+addr+")/fromconfig")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	for _, q := range []string{"CREATE TABLE t (a INT PRIMARY KEY)", "CALL dolt_branch('idle')"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var activity []string
	rows, err := db.Query("SELECT branch, last_read IS NOT NULL, last_write IS NOT NULL, active_sessions, system_start_time IS NOT NULL FROM dolt_branch_activity")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var b string
		var read, write, sessions, started int
		if err := rows.Scan(&b, &read, &write, &sessions, &started); err != nil {
			t.Fatal(err)
		}
		activity = append(activity, fmt.Sprintf("%s %d %d %d %d", b, read, write, sessions, started))
	}
	if want := []string{"idle 0 0 0 1", "main 1 1 1 1"}; !reflect.DeepEqual(activity, want) {
		t.Fatalf("dolt_branch_activity: %q, want %q", activity, want)
	}
	db.Close()
	if bad, _ := sql.Open("mysql", "root@tcp("+addr+")/"); bad.Ping() == nil {
		t.Fatal("root without a password logged in to a server whose superuser is admin")
	}
	stop <- os.Interrupt
	if code := <-exited; code != 0 {
		t.Fatalf("exit %d: %s", code, serr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "fromconfig", ".verso")); err != nil {
		t.Fatalf("database not in the config's data dir: %v", err)
	}

	var out, errOut bytes.Buffer
	code := serveSQL("", []string{"--data-dir", filepath.Join(dir, "data"), "--host", "0.0.0.0", "--port", "0"}, &out, &errOut, stop)
	if code != 1 || !strings.Contains(errOut.String(), "no password") || !strings.Contains(errOut.String(), "--password") {
		t.Fatalf("0.0.0.0 without a password: exit %d, stderr %q", code, errOut.String())
	}
}

// TestSQLServerBadLimits: the limits' flags refuse values they cannot use.
func TestSQLServerBadLimits(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--max-query-memory", "lots"}, "--max-query-memory: \"lots\" is not a size"},
		{[]string{"--cache-size", "1X"}, "--cache-size: \"1X\" is not a size"},
		{[]string{"--connect-timeout", "0s"}, "--connect-timeout must be positive"},
		{[]string{"--log-level", "loud"}, "--log-level: \"loud\" is not a log level"},
	} {
		var out, errOut bytes.Buffer
		code := serveSQL(t.TempDir(), append(tc.args, "--port", "0"), &out, &errOut, make(chan os.Signal))
		if code != 2 || !strings.Contains(errOut.String(), tc.msg) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut.String(), tc.msg)
		}
	}
}

// TestSQLServerHTTP: the web console starts from the config file's http
// key (and --http overrides it), asks for a login, and stops with the
// server; a bad address is refused.
func TestSQLServerHTTP(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "server.yaml")
	if err := os.WriteFile(cfg, []byte("data_dir: data\nhttp: {host: 127.0.0.1, port: 1}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var sout, serr syncBuffer
	stop := make(chan os.Signal, 1)
	exited := make(chan int, 1)
	go func() {
		exited <- serveSQL("", []string{"--config", cfg, "--port", "0", "--socket", "", "--http", "127.0.0.1:0"}, &sout, &serr, stop)
	}()
	var url string
	for deadline := time.Now().Add(10 * time.Second); url == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, a, ok := strings.Cut(sout.String(), "web console on "); ok && strings.Contains(a, "\n") {
			url, _, _ = strings.Cut(a, "\n")
		}
	}
	if url == "" {
		t.Fatalf("no web console: %s %s", sout.String(), serr.String())
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(url + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login" {
		t.Errorf("the console's page without a login: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	stop <- os.Interrupt
	if code := <-exited; code != 0 {
		t.Fatalf("exit %d: %s", code, serr.String())
	}
	if _, err := client.Get(url + "/login"); err == nil {
		t.Error("the console still answers after the server stopped")
	}

	for _, tc := range []struct {
		args []string
		yaml string
		msg  string
	}{
		{args: []string{"--http", "8080"}, msg: "--http is \"8080\"; give host:port"},
		{yaml: "http: {host: 127.0.0.1}\n", msg: "http needs a port"},
	} {
		args := append(tc.args, "--port", "0")
		if tc.yaml != "" {
			p := filepath.Join(t.TempDir(), "c.yaml")
			os.WriteFile(p, []byte(tc.yaml), 0o600)
			args = append(args, "--config", p)
		}
		var out, errOut bytes.Buffer
		if code := serveSQL(t.TempDir(), args, &out, &errOut, make(chan os.Signal)); code != 2 || !strings.Contains(errOut.String(), tc.msg) {
			t.Errorf("%v %q: exit %d, stderr %q; want 2 and %q", tc.args, tc.yaml, code, errOut.String(), tc.msg)
		}
	}
}
