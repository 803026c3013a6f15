package main

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

var updateMySQLClient = flag.Bool("update", false, "rewrite the .expected files of testdata/mysqlclient")

// TestMySQLClient runs each testdata/mysqlclient/*.sql file through the
// mysql command-line client (MariaDB's or MySQL's) against a freshly
// started verso sql-server on a temporary data dir and a free port, and
// compares the client's output with the .expected file beside it; go test
// ./cmd/verso -run TestMySQLClient -update rewrites those files.
//
// The data dir holds one database, test (made by verso init, author
// "verso test" <test@example.com>), which is the client's default
// database. The client runs as
//
//	stdbuf -o0 mysql -h 127.0.0.1 -P <port> -u root -D test --table --force -vvv < file.sql
//
// so each statement is echoed, results are tables, errors print as
// "ERROR 1064 (42000) at line 7: ..." and do not stop the script, and
// stdout and stderr (both compared, in order: stdbuf makes stdout
// unbuffered) interleave as they happen. Timings such as "(0.001 sec)" are
// removed before comparing.
//
// Without a mysql client on PATH the test is skipped, or fails when
// VERSO_REQUIRE_MYSQL_CLIENT=1 (as in CI, which installs mariadb-client).
func TestMySQLClient(t *testing.T) {
	mysqlPath, err := exec.LookPath("mysql")
	if err != nil {
		if os.Getenv("VERSO_REQUIRE_MYSQL_CLIENT") == "1" {
			t.Fatal("the mysql command-line client is not on PATH and VERSO_REQUIRE_MYSQL_CLIENT=1: install it (apt-get install mariadb-client)")
		}
		t.Skip("the mysql command-line client is not on PATH (apt-get install mariadb-client); set VERSO_REQUIRE_MYSQL_CLIENT=1 to fail instead")
	}
	stdbuf, err := exec.LookPath("stdbuf")
	if err != nil {
		t.Fatal("stdbuf (GNU coreutils) is not on PATH: it keeps the client's output and errors in order; install coreutils")
	}
	files, err := filepath.Glob(filepath.Join("testdata", "mysqlclient", "*.sql"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no testdata/mysqlclient/*.sql files")
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".sql")
		t.Run(name, func(t *testing.T) {
			got := runMySQLClient(t, stdbuf, mysqlPath, file)
			expFile := strings.TrimSuffix(file, ".sql") + ".expected"
			if *updateMySQLClient {
				if err := os.WriteFile(expFile, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(expFile)
			if err != nil {
				t.Fatalf("%v (run go test ./cmd/verso -run TestMySQLClient -update to write it)", err)
			}
			if got != string(want) {
				t.Errorf("%s: output differs from %s (-update rewrites it)\n%s", file, expFile, lineDiff(string(want), got))
			}
		})
	}
}

// mysqlTiming matches the client's statement timings.
var mysqlTiming = regexp.MustCompile(` \(\d+(\.\d+)? (sec|min|hours?)[^)]*\)`)

// commitHash matches a commit hash in a result table (32 characters of
// the base32 alphabet between "| " and " |"): every run's first commit
// is made at its own time, so every hash after it differs from run to
// run. Hashes print as <hash_______________________________> (as wide).
var commitHash = regexp.MustCompile(`\| [0-9a-v]{32} \|`)

// runMySQLClient starts a server on a fresh data dir, runs file through
// the client and returns its normalized output.
func runMySQLClient(t *testing.T, stdbuf, mysqlPath, file string) string {
	dataDir := t.TempDir()
	runOK(t, "init", "--name", "verso test", "--email", "test@example.com", filepath.Join(dataDir, "test"))
	addr := startServer(t, dataDir)
	host, port, _ := strings.Cut(addr, ":")
	in, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	cmd := exec.Command(stdbuf, "-o0", mysqlPath, "--no-defaults", "-h", host, "-P", port, "-u", "root",
		"-D", "test", "--table", "--force", "-vvv")
	cmd.Stdin = in
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		<-done
		t.Fatalf("the mysql client did not finish %s in 2 minutes; output so far:\n%s", file, out.String())
	}
	// With --force, the client exits with 1 after a failed statement;
	// the output says which.
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("mysql client: %v", err)
	}
	return commitHash.ReplaceAllString(mysqlTiming.ReplaceAllString(out.String(), ""), "| <hash>"+strings.Repeat(" ", 26)+" |")
}

// startServer runs verso sql-server on dataDir and a free loopback port
// until the test ends, and returns its address.
func startServer(t *testing.T, dataDir string) string {
	t.Helper()
	return startServerIn(t, "", "--data-dir", dataDir, "--port", "0")
}

// startServerIn runs verso sql-server in the folder dir with args until
// the test ends, and returns its address.
func startServerIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	var sout, serr syncBuffer
	stop := make(chan os.Signal, 1)
	exited := make(chan int, 1)
	go func() { exited <- serveSQL(dir, args, &sout, &serr, stop) }()
	t.Cleanup(func() {
		stop <- os.Interrupt
		select {
		case code := <-exited:
			if code != 0 {
				t.Errorf("server exit %d: %s", code, serr.String())
			}
		case <-time.After(10 * time.Second):
			t.Error("server did not stop in 10s")
		}
	})
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, a, ok := strings.Cut(sout.String(), "listening on "); ok && strings.Contains(a, "\n") {
			addr, _, _ := strings.Cut(a, "\n")
			return addr
		}
		select {
		case code := <-exited:
			t.Fatalf("server exited with %d: %s", code, serr.String())
		default:
		}
	}
	t.Fatalf("server did not start in 10s: %s", serr.String())
	return ""
}

// lineDiff shows the first lines where want and got differ, with context.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	from := max(0, i-3)
	var b strings.Builder
	b.WriteString("first difference at line " + strconv.Itoa(i+1) + ":\n")
	for j := from; j < i; j++ {
		b.WriteString("  " + w[j] + "\n")
	}
	for j := i; j < min(len(w), i+8); j++ {
		b.WriteString("- " + w[j] + "\n")
	}
	for j := i; j < min(len(g), i+8); j++ {
		b.WriteString("+ " + g[j] + "\n")
	}
	return b.String()
}
