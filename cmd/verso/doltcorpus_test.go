package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The Dolt corpus: SQL sessions under testdata/doltcorpus of the
// repository, each with the output Dolt 2.3.1 gave for it through the
// mysql client, replayed against verso and compared. See
// testdata/doltcorpus/README.md for the layout and how to re-record.
var (
	doltBinary    = flag.String("dolt", "", "record testdata/doltcorpus/*.expected with this Dolt binary instead of comparing verso's output with them")
	updateVersoed = flag.Bool("update-verso", false, "rewrite the existing .verso files of testdata/doltcorpus (verso's intended answers where it differs from Dolt on purpose) from verso's output; touch NAME.verso to make one")
)

// corpusDir is the corpus's folder, relative to this package.
const corpusDir = "../../testdata/doltcorpus"

// corpusDB is the database each scenario starts in, made empty by the
// harness before the scenario runs.
const corpusDB = "test"

// TestDoltCorpus replays every scenario of testdata/doltcorpus against a
// verso sql-server of its own (a fresh data dir) through the mysql client
// and compares the client's output, masked (maskCorpus), with the
// scenario's .expected file, which holds Dolt's, corrected where Dolt
// departs from MySQL everywhere alike (doltCorrections). A scenario with a .verso
// file is one where verso answers differently on purpose
// (docs/DOLT-COMPATIBILITY.md says why): its output is compared with that
// file instead. A scenario named in PENDING is one that does not match
// yet: its difference is logged, and the test fails once it matches, so
// that the list stays true.
//
// With -dolt PATH, the test records: each scenario runs against a Dolt
// sql-server of its own and its .expected file is rewritten
// (scripts/record-dolt-corpus.sh). -run TestDoltCorpus/NAME narrows
// either to some scenarios.
func TestDoltCorpus(t *testing.T) {
	mysqlPath, stdbuf := corpusClient(t)
	files, err := filepath.Glob(filepath.Join(corpusDir, "*.sql"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no scenarios in %s", corpusDir)
	}
	pending, err := readPending(filepath.Join(corpusDir, "PENDING"))
	if err != nil {
		t.Fatal(err)
	}
	for name := range pending {
		if _, err := os.Stat(filepath.Join(corpusDir, name+".sql")); err != nil {
			t.Errorf("PENDING names %s, which is not a scenario", name)
		}
		if _, err := os.Stat(filepath.Join(corpusDir, name+".verso")); err == nil {
			t.Errorf("PENDING names %s, which has verso's intended answers (%s.verso): it is one or the other", name, name)
		}
	}
	var same, intended, differ []string
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".sql")
		expFile := strings.TrimSuffix(file, ".sql") + ".expected"
		ok := t.Run(name, func(t *testing.T) {
			if *doltBinary != "" {
				got := runCorpusScenario(t, mysqlPath, stdbuf, file, func(t *testing.T) (string, string) { return startCorpusDolt(t, *doltBinary) })
				if err := os.WriteFile(expFile, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(expFile)
			if err != nil {
				t.Fatalf("%v: record Dolt's answers with scripts/record-dolt-corpus.sh", err)
			}
			want = []byte(correctDolt(string(want)))
			got := runCorpusScenario(t, mysqlPath, stdbuf, file, startCorpusVerso)
			versoFile := strings.TrimSuffix(file, ".sql") + ".verso"
			if mine, err := os.ReadFile(versoFile); err == nil {
				if *updateVersoed {
					if err := os.WriteFile(versoFile, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				if got == string(want) {
					t.Fatalf("verso now gives Dolt's output: remove %s and its line in docs/DOLT-COMPATIBILITY.md", versoFile)
				}
				if got != string(mine) {
					t.Fatalf("output differs from verso's intended answers in %s (-update-verso rewrites it):\n%s", versoFile, lineDiff(string(mine), got))
				}
				intended = append(intended, name)
				return
			}
			if reason, ok := pending[name]; ok {
				if got == string(want) {
					t.Fatalf("%s now gives Dolt's output: remove it from PENDING", name)
				}
				differ = append(differ, name)
				t.Logf("pending (%s):\n%s", reason, lineDiff(string(want), got))
				return
			}
			if got != string(want) {
				t.Fatalf("output differs from Dolt's (%s):\n%s", expFile, lineDiff(string(want), got))
			}
			same = append(same, name)
		})
		if !ok && *doltBinary == "" {
			differ = append(differ, name)
		}
	}
	if *doltBinary == "" {
		t.Logf("%d scenarios: %d give Dolt's output, %d verso's intended answers, %d differ", len(files), len(same), len(intended), len(differ))
	}
}

// readPending reads the PENDING file: a scenario name and, after it,
// what differs, on each line; # starts a comment.
func readPending(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	pending := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, reason, _ := strings.Cut(line, " ")
		pending[strings.TrimSuffix(name, ":")] = strings.TrimSpace(reason)
	}
	return pending, nil
}

// corpusClient returns the mysql client's and stdbuf's paths, or skips
// the test (fails it with VERSO_REQUIRE_MYSQL_CLIENT=1).
func corpusClient(t *testing.T) (mysqlPath, stdbuf string) {
	mysqlPath, err := exec.LookPath("mysql")
	if err != nil {
		if os.Getenv("VERSO_REQUIRE_MYSQL_CLIENT") == "1" || *doltBinary != "" {
			t.Fatal("the mysql command-line client is not on PATH: install it (apt-get install mariadb-client)")
		}
		t.Skip("the mysql command-line client is not on PATH (apt-get install mariadb-client); set VERSO_REQUIRE_MYSQL_CLIENT=1 to fail instead")
	}
	stdbuf, err = exec.LookPath("stdbuf")
	if err != nil {
		t.Fatal("stdbuf (GNU coreutils) is not on PATH: it keeps the client's output and errors in order; install coreutils")
	}
	return mysqlPath, stdbuf
}

// startCorpusVerso runs verso sql-server on a fresh data dir and returns
// its address and the data dir.
func startCorpusVerso(t *testing.T) (addr, dataDir string) {
	dataDir = t.TempDir()
	return startServerIn(t, "", "--data-dir", dataDir, "--port", "0", "--socket", "", "--log-level", "error"), dataDir
}

// startCorpusDolt runs a Dolt sql-server on a fresh data dir, with a
// HOME of its own (metrics and version checks off, no committer set:
// commits made over SQL record the SQL user), until the test ends, and
// returns its address and the data dir.
func startCorpusDolt(t *testing.T, bin string) (addr, dataDir string) {
	t.Helper()
	dir := t.TempDir()
	home, data := filepath.Join(dir, "home"), filepath.Join(dir, "data")
	for _, d := range []string{home, data} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(), "HOME="+home)
	for _, kv := range [][2]string{{"metrics.disabled", "true"}, {"versioncheck.disabled", "true"}} {
		c := exec.Command(bin, "config", "--global", "--add", kv[0], kv[1])
		c.Dir, c.Env = home, env
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("dolt config: %v: %s", err, out)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	var log bytes.Buffer
	cmd := exec.Command(bin, "sql-server", "-H", "127.0.0.1", "-P", strconv.Itoa(port), "-l", "warning")
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = data, env, &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	})
	addr = "127.0.0.1:" + strconv.Itoa(port)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		select {
		case <-exited:
			t.Fatalf("dolt sql-server exited: %s", log.String())
		default:
		}
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return addr, data
		}
	}
	t.Fatalf("dolt sql-server did not answer on %s in 30s", addr)
	return "", ""
}

// runCorpusScenario starts a server with start, makes the database test
// on it, runs file in it through the mysql client and returns the
// client's output, masked. The client runs as
//
//	stdbuf -o0 mysql --no-defaults -h HOST -P PORT -u root -D test -B --force -vv < file
//
// batch output (tab-separated, with column names, so that they are
// compared too), each statement echoed with its row count or affected
// rows, errors in order with the output ("ERROR 1146 (42S02) at line 3:
// ...") and not stopping the session. The scenario's folder placeholders
// ($REMOTE_DIR, ...) become fresh folders of this run before the server
// starts, and $DATA_DIR the server's data dir; in the output, their paths
// become placeholders again (corpusFolders).
func runCorpusScenario(t *testing.T, mysqlPath, stdbuf, file string, start func(*testing.T) (addr, dataDir string)) string {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	sql, folders := corpusFolders(t, string(src))
	addr, dataDir := start(t)
	sql = strings.ReplaceAll(sql, corpusDataDir, dataDir)
	folders.add(corpusDataDir, dataDir)
	host, port, _ := strings.Cut(addr, ":")
	args := []string{"--no-defaults", "-h", host, "-P", port, "-u", "root"}
	if out, err := exec.Command(mysqlPath, append(args, "-e", "CREATE DATABASE "+corpusDB)...).CombinedOutput(); err != nil {
		t.Fatalf("CREATE DATABASE %s: %v: %s", corpusDB, err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, stdbuf, append([]string{"-o0", mysqlPath}, append(args, "-D", corpusDB, "-B", "--force", "-vv")...)...)
	cmd.Stdin = strings.NewReader(sql)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("the mysql client did not finish %s in 2 minutes; output so far:\n%s", file, out.String())
	}
	// With --force, the client exits with 1 after a failed statement;
	// the output says which.
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("mysql client: %v", err)
	}
	return maskCorpus(folders.mask(out.String()), time.Now())
}

// corpusFolder is a placeholder a scenario may write for a folder of its
// own, such as a file:// remote's ('file://$REMOTE_DIR'): $REMOTE_DIR,
// $REMOTE_DIR2 and so on, each a distinct fresh empty folder of the run
// (a folder that does not exist yet is one below it: $REMOTE_DIR/none).
var corpusFolder = regexp.MustCompile(`\$REMOTE_DIR[0-9]*\b`)

// corpusDataDir stands for the server's data dir, in a scenario (a
// remote inside a database's folder, gone when the database is dropped)
// and in the output (a relative file:// remote resolves inside it).
const corpusDataDir = "$DATA_DIR"

// corpusPaths maps machine paths of a scenario's run to the placeholders
// that stand for them in its output.
type corpusPaths map[string]string

// corpusFolders makes a fresh empty folder for each distinct placeholder
// of sql (corpusFolder) and returns sql with the folders' paths in their
// place, and the paths to mask back.
func corpusFolders(t *testing.T, sql string) (string, corpusPaths) {
	t.Helper()
	paths := corpusPaths{}
	dirs := map[string]string{}
	sql = corpusFolder.ReplaceAllStringFunc(sql, func(name string) string {
		if dir, ok := dirs[name]; ok {
			return dir
		}
		dir := t.TempDir()
		dirs[name] = dir
		paths.add(name, dir)
		return dir
	})
	return sql, paths
}

// add masks path, and the path with its symbolic links resolved, as name.
func (p corpusPaths) add(name, path string) {
	p[path] = name
	if real, err := filepath.EvalSymlinks(path); err == nil {
		p[real] = name
	}
}

// mask replaces each path in out by its placeholder, longest path first
// so that a path is never cut by one it begins with.
func (p corpusPaths) mask(out string) string {
	paths := make([]string, 0, len(p))
	for path := range p {
		paths = append(paths, path)
	}
	sort.Slice(paths, func(i, j int) bool { return len(paths[i]) > len(paths[j]) })
	for _, path := range paths {
		out = strings.ReplaceAll(out, path, p[path])
	}
	return out
}

// doltCorrections are the places where Dolt 2.3.1 answers otherwise than
// MySQL in every statement that meets them, and verso answers as MySQL
// (docs/DOLT-COMPATIBILITY.md lists them with the reasons): before
// comparing, Dolt's output is corrected by them, and only by them.
var doltCorrections = []struct {
	re   *regexp.Regexp
	repl string
}{
	// MySQL's SQLSTATEs of its own error numbers, where Dolt sends the
	// generic HY000: clients map them to exception classes.
	{regexp.MustCompile(`(?m)^ERROR 1146 \(HY000\)`), "ERROR 1146 (42S02)"},
	{regexp.MustCompile(`(?m)^ERROR 1049 \(HY000\)`), "ERROR 1049 (42000)"},
	{regexp.MustCompile(`(?m)^ERROR (1062|1048) \(HY000\)`), "ERROR $1 (23000)"},
	// An unknown column is MySQL's error 1054, not a generic error.
	{regexp.MustCompile(`(?m)^ERROR 1105 \(HY000\)( at line \d+: column ".*" could not be found in any table in scope)$`), "ERROR 1054 (42S22)$1"},
}

// correctDolt applies doltCorrections to Dolt's output.
func correctDolt(out string) string {
	for _, c := range doltCorrections {
		out = c.re.ReplaceAllString(out, c.repl)
	}
	return out
}

var (
	// corpusHash matches a commit or value hash: 32 characters of the
	// base32 alphabet 0-9a-v standing alone.
	corpusHash = regexp.MustCompile(`\b[0-9a-v]{32}\b`)
	// corpusTime matches a DATETIME or TIMESTAMP value with up to six
	// fractional digits.
	corpusTime = regexp.MustCompile(`\b(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(\.\d{1,6})?\b`)
)

// maskCorpus replaces in a scenario's output what differs from run to
// run and between servers that agree: each hash by <hashN>, N counting
// the distinct hashes in order of first appearance (so that "the same
// commit" still compares), and each time within 36 hours of now (a
// commit's or the clock's, not a value a scenario wrote) by <now>, or
// <now.3> with its number of fractional digits (which a column's type
// decides). Statement timings such as "(0.01 sec)" go.
func maskCorpus(out string, now time.Time) string {
	out = mysqlTiming.ReplaceAllString(out, "")
	seen := map[string]int{}
	out = corpusHash.ReplaceAllStringFunc(out, func(h string) string {
		n, ok := seen[h]
		if !ok {
			n = len(seen) + 1
			seen[h] = n
		}
		return "<hash" + strconv.Itoa(n) + ">"
	})
	return corpusTime.ReplaceAllStringFunc(out, func(s string) string {
		m := corpusTime.FindStringSubmatch(s)
		tm, err := time.Parse("2006-01-02 15:04:05", fmt.Sprintf("%s-%s-%s %s:%s:%s", m[1], m[2], m[3], m[4], m[5], m[6]))
		if err != nil || tm.Sub(now).Abs() > 36*time.Hour {
			return s
		}
		if m[7] != "" {
			return "<now." + strconv.Itoa(len(m[7])-1) + ">"
		}
		return "<now>"
	})
}

// TestMaskCorpus pins the masking: hashes numbered by first appearance,
// recent times masked with their precision, old ones kept.
func TestMaskCorpus(t *testing.T) {
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	in := "abcdefghij0123456789abcdefghijkl\tx\tabcdefghij0123456789abcdefghijkl\n" +
		"0000000000000000000000000000000v (0.001 sec)\n" +
		"2026-12-04 16:53:27.219\t2026-12-03 01:00:00\t2020-01-01 00:00:00\n" +
		"abcdefghij0123456789abcdefghijklm is too long\n"
	want := "<hash1>\tx\t<hash1>\n" +
		"<hash2>\n" +
		"<now.3>\t<now>\t2020-01-01 00:00:00\n" +
		"abcdefghij0123456789abcdefghijklm is too long\n"
	if got := maskCorpus(in, now); got != want {
		t.Errorf("maskCorpus:\n%s\nwant:\n%s", got, want)
	}
}

// TestCorrectDolt pins the corrections of Dolt's output: SQLSTATEs of
// MySQL's numbers and the unknown column's number, nothing else.
func TestCorrectDolt(t *testing.T) {
	in := "ERROR 1146 (HY000) at line 3: table not found: x\n" +
		"ERROR 1105 (HY000) at line 4: column \"foo\" could not be found in any table in scope\n" +
		"ERROR 1105 (HY000) at line 5: branch not found: x\n" +
		"ERROR 1105 (HY000) at line 6: function 'f' expected 0 or 1 arguments, 2 received\n" +
		"x ERROR 1146 (HY000)\n"
	want := "ERROR 1146 (42S02) at line 3: table not found: x\n" +
		"ERROR 1054 (42S22) at line 4: column \"foo\" could not be found in any table in scope\n" +
		"ERROR 1105 (HY000) at line 5: branch not found: x\n" +
		"ERROR 1105 (HY000) at line 6: function 'f' expected 0 or 1 arguments, 2 received\n" +
		"x ERROR 1146 (HY000)\n"
	if got := correctDolt(in); got != want {
		t.Errorf("correctDolt:\n%s\nwant:\n%s", got, want)
	}
}

// TestCorpusFolders pins the folder placeholders: each distinct one a
// fresh empty folder, the same one the same folder, and every path masked
// back, the data dir's too, however the placeholders begin alike.
func TestCorpusFolders(t *testing.T) {
	sql, paths := corpusFolders(t, "CALL dolt_remote('add', 'a', 'file://$REMOTE_DIR');\n"+
		"CALL dolt_remote('add', 'b', 'file://$REMOTE_DIR2/x');\n"+
		"SELECT '$REMOTE_DIR', '$REMOTE_DIRX';\n")
	lines := strings.Split(sql, "\n")
	dir := strings.TrimSuffix(strings.TrimPrefix(lines[0], "CALL dolt_remote('add', 'a', 'file://"), "');")
	dir2 := strings.TrimSuffix(strings.TrimPrefix(lines[1], "CALL dolt_remote('add', 'b', 'file://"), "/x');")
	if dir == dir2 || !filepath.IsAbs(dir) || !filepath.IsAbs(dir2) {
		t.Fatalf("folders %q and %q: want two distinct absolute paths", dir, dir2)
	}
	for _, d := range []string{dir, dir2} {
		if entries, err := os.ReadDir(d); err != nil || len(entries) != 0 {
			t.Errorf("folder %s: %v, %d entries; want an empty folder", d, err, len(entries))
		}
	}
	if want := "SELECT '" + dir + "', '$REMOTE_DIRX';"; lines[2] != want {
		t.Errorf("third line %q, want %q", lines[2], want)
	}
	paths.add(corpusDataDir, "/data/dir")
	out := "To file://" + dir + "\n" + dir2 + "/x\t/data/dir/test/y\n"
	want := "To file://$REMOTE_DIR\n$REMOTE_DIR2/x\t$DATA_DIR/test/y\n"
	if got := paths.mask(out); got != want {
		t.Errorf("mask:\n%s\nwant:\n%s", got, want)
	}
}
