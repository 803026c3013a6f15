package main

import (
	"context"
	gosql "database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/verso-db/verso/internal/histgen"
)

// doltServer is a Dolt sql-server this command started, with its data
// (a database bench, made by dolt init) and its HOME in one folder.
type doltServer struct {
	cmd  *exec.Cmd
	addr string
	log  string        // the server's output
	done chan struct{} // closed when the process has exited, with werr
	werr error
}

// startDolt initializes a Dolt database bench in dir and serves it on a
// free loopback port. The Dolt commands get dir/home as HOME, where
// their global config (the committer; metrics and version checks off)
// goes. When ctx ends, the server gets an interrupt (and a kill 10 s
// later); when this process dies, on Linux, a SIGTERM.
func startDolt(ctx context.Context, bin, dir string) (*doltServer, error) {
	home, data := filepath.Join(dir, "home"), filepath.Join(dir, "data")
	if err := os.MkdirAll(filepath.Join(data, "bench"), 0o755); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(home, 0o755); err != nil {
		return nil, err
	}
	env := append(os.Environ(), "HOME="+home)
	run := func(in string, args ...string) error {
		c := exec.CommandContext(ctx, bin, args...)
		c.Dir, c.Env = in, env
		if out, err := c.CombinedOutput(); err != nil {
			return fmt.Errorf("dolt %s: %w: %s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	for _, kv := range [][2]string{{"user.name", "versobench"}, {"user.email", "versobench@localhost"}, {"metrics.disabled", "true"}, {"versioncheck.disabled", "true"}} {
		if err := run(home, "config", "--global", "--add", kv[0], kv[1]); err != nil {
			return nil, err
		}
	}
	if err := run(filepath.Join(data, "bench"), "init"); err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	s := &doltServer{addr: "127.0.0.1:" + strconv.Itoa(port), log: filepath.Join(dir, "dolt.log"), done: make(chan struct{})}
	out, err := os.Create(s.log)
	if err != nil {
		return nil, err
	}
	defer out.Close()
	s.cmd = exec.CommandContext(ctx, bin, "sql-server", "-H", "127.0.0.1", "-P", strconv.Itoa(port), "-l", "warning")
	s.cmd.Dir, s.cmd.Env, s.cmd.Stdout, s.cmd.Stderr = data, env, out, out
	s.cmd.Cancel = func() error { return s.cmd.Process.Signal(os.Interrupt) }
	s.cmd.WaitDelay = 10 * time.Second
	dieWithUs(s.cmd)
	started := make(chan error, 1)
	go func() {
		// The thread that starts the process stays this goroutine's
		// until the process ends (see dieWithUs).
		runtime.LockOSThread()
		if err := s.cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		s.werr = s.cmd.Wait()
		close(s.done)
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	db, err := s.open("")
	if err != nil {
		s.Close()
		return nil, err
	}
	defer db.Close()
	for deadline := time.Now().Add(30 * time.Second); ; {
		err := db.PingContext(ctx)
		if err == nil {
			return s, nil
		}
		select {
		case <-s.done:
			return nil, fmt.Errorf("dolt sql-server exited (%v); its output is in %s", s.werr, s.log)
		case <-ctx.Done():
			s.Close()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.Close()
			return nil, fmt.Errorf("dolt sql-server does not answer on %s: %w", s.addr, err)
		}
	}
}

// open returns a pool of connections to the server with the options of
// the DSN's query string (params), in database bench.
func (s *doltServer) open(params string) (*gosql.DB, error) {
	return gosql.Open("mysql", "root@tcp("+s.addr+")/bench"+params)
}

// Close stops the server, if it still runs: an interrupt, then a kill
// after 10 s.
func (s *doltServer) Close() {
	select {
	case <-s.done:
		return
	default:
	}
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// replay writes the history of ops into bench from one connection, many
// ops per round trip (multi-statements), and returns the hash Dolt gave
// each commit of commits (the history's commit messages, in order).
func (s *doltServer) replay(ctx context.Context, ops []histgen.Op, commits []string) ([]string, error) {
	script, err := histgen.SQL(ops)
	if err != nil {
		return nil, err
	}
	db, err := s.open("?multiStatements=true")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	const perTrip = 500 // statements per round trip: about 80 commits
	var batch []string
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		_, err := conn.ExecContext(ctx, strings.Join(batch, ";\n"))
		batch = batch[:0]
		return err
	}
	for _, st := range script {
		batch = append(batch, st...)
		if len(batch) >= perTrip {
			if err := flush(); err != nil {
				return nil, fmt.Errorf("dolt: replaying the history: %w", err)
			}
		}
	}
	if err := flush(); err != nil {
		return nil, fmt.Errorf("dolt: replaying the history: %w", err)
	}
	// The commits' messages are unique: they name the commit's index.
	rows, err := conn.QueryContext(ctx, "SELECT message, commit_hash FROM dolt_commits")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	byMsg := map[string]string{}
	for rows.Next() {
		var m, h string
		if err := rows.Scan(&m, &h); err != nil {
			return nil, err
		}
		byMsg[m] = h
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	hashes := make([]string, len(commits))
	for i, m := range commits {
		h, ok := byMsg[m]
		if !ok {
			return nil, fmt.Errorf("dolt: commit %q of the history is not in dolt_commits after the replay", m)
		}
		hashes[i] = h
	}
	return hashes, nil
}
