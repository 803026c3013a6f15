package main

import (
	"bufio"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestMain lets tests run this test binary as the verso program:
// VERSO_TEST_AS_VERSO=1 makes it run its arguments as verso's.
func TestMain(m *testing.M) {
	if os.Getenv("VERSO_TEST_AS_VERSO") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// startChildServer runs verso sql-server on dataDir in a child process
// and returns it with its address.
func startChildServer(t *testing.T, dataDir string, flags ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"sql-server", "--data-dir", dataDir, "--port", "0"}, flags...)...)
	cmd.Env = append(os.Environ(), "VERSO_TEST_AS_VERSO=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "verso sql-server listening on "); ok {
				addr <- a
			}
		}
	}()
	select {
	case a := <-addr:
		return cmd, a
	case <-time.After(30 * time.Second):
		t.Fatal("the child server did not start in 30s")
		return nil, ""
	}
}

// openChild starts a server process on dataDir and returns it with a pool
// of root connections to its database db ("" for none), closed when the
// test ends.
func openChild(t *testing.T, dataDir, db string) (*exec.Cmd, *sql.DB) {
	t.Helper()
	cmd, addr := startChildServer(t, dataDir)
	c, err := sql.Open("mysql", "root@tcp("+addr+")/"+db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return cmd, c
}

// restarted starts a server process on dataDir again (after a crash) and
// returns a pool of connections to database db of it (see openChild).
func restarted(t *testing.T, dataDir, db string) *sql.DB {
	t.Helper()
	_, c := openChild(t, dataDir, db)
	return c
}

// mustExec runs each statement on db, failing the test at the first error.
func mustExec(t *testing.T, db *sql.DB, qs ...string) {
	t.Helper()
	for _, q := range qs {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// TestCrashAfterCommit: a verso sql-server process killed with SIGKILL
// right after acknowledging a COMMIT (and an autocommit INSERT) still has
// those rows when restarted, round after round.
func TestCrashAfterCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	dataDir := t.TempDir()
	const rounds = 5
	for round := 0; round < rounds; round++ {
		cmd, db := openChild(t, dataDir, "")
		if round == 0 {
			mustExec(t, db, "CREATE DATABASE crash", "CREATE TABLE crash.t (id INT PRIMARY KEY, v VARCHAR(20))")
		}
		// Every row acknowledged in earlier rounds is there.
		var n int
		if err := db.QueryRow("SELECT COUNT(*) FROM crash.t").Scan(&n); err != nil || n != 2*round {
			t.Fatalf("round %d: %d rows, %v; want %d", round, n, err, 2*round)
		}
		tx, err := db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec("INSERT INTO crash.t VALUES (?, ?)", 2*round, fmt.Sprintf("tx %d", round)); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec("INSERT INTO crash.t VALUES (?, ?)", 2*round+1, fmt.Sprintf("autocommit %d", round)); err != nil {
			t.Fatal(err)
		}
		// Kill at once: no graceful shutdown, no chance to flush.
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		db.Close()
	}
	db := restarted(t, dataDir, "crash")
	rows, err := db.Query("SELECT id, v FROM t ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	i := 0
	for rows.Next() {
		var id int
		var v string
		if err := rows.Scan(&id, &v); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("tx %d", i/2)
		if i%2 == 1 {
			want = fmt.Sprintf("autocommit %d", i/2)
		}
		if id != i || v != want {
			t.Fatalf("row %d: (%d, %q), want (%d, %q)", i, id, v, i, want)
		}
		i++
	}
	if i != 2*rounds {
		t.Fatalf("%d rows after %d crashes, want %d", i, rounds, 2*rounds)
	}
}

// TestCrashDuringConcurrentCommits: four clients insert rows as fast as
// they can (their commits go to disk in groups) while the server process
// is killed with SIGKILL; after a restart every insert that was
// acknowledged is there. Three rounds.
func TestCrashDuringConcurrentCommits(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	dataDir := t.TempDir()
	acked := map[int]bool{}
	for round := 0; round < 3; round++ {
		cmd, db := openChild(t, dataDir, "")
		if round == 0 {
			mustExec(t, db, "CREATE DATABASE crash", "CREATE TABLE crash.t (id INT PRIMARY KEY, w INT)")
		}
		checkAcked(t, db, acked)
		type ack struct{ id int }
		acks := make(chan ack, 1<<16)
		stop := make(chan struct{})
		done := make(chan struct{})
		for w := 0; w < 4; w++ {
			go func() {
				defer func() { done <- struct{}{} }()
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					id := round*1_000_000 + w*100_000 + i
					if _, err := db.Exec("INSERT INTO crash.t VALUES (?, ?)", id, w); err != nil {
						return // the server is gone
					}
					acks <- ack{id}
				}
			}()
		}
		time.Sleep(400 * time.Millisecond)
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		close(stop)
		for w := 0; w < 4; w++ {
			<-done
		}
		close(acks)
		n := 0
		for a := range acks {
			acked[a.id] = true
			n++
		}
		if n == 0 {
			t.Fatalf("round %d: no insert was acknowledged before the kill", round)
		}
		t.Logf("round %d: %d inserts acknowledged before the kill", round, n)
		db.Close()
	}
	db := restarted(t, dataDir, "")
	checkAcked(t, db, acked)
}

// checkAcked fails the test unless every id in acked is a row of crash.t.
func checkAcked(t *testing.T, db *sql.DB, acked map[int]bool) {
	t.Helper()
	rows, err := db.Query("SELECT id FROM crash.t")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	have := map[int]bool{}
	for rows.Next() {
		var id int
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		have[id] = true
	}
	for id := range acked {
		if !have[id] {
			t.Fatalf("acknowledged row %d is missing after the crash (%d rows acknowledged, %d present)", id, len(acked), len(have))
		}
	}
}

// TestCrashDuringLockedIncrements: four clients increment two counter rows
// (`n = n + 1`, so each waits for the others' row locks) while the server
// process is killed with SIGKILL, three rounds; after each restart every
// counter holds at least the increments acknowledged to the clients and at
// most those plus the ones in flight at the kill (one per client).
func TestCrashDuringLockedIncrements(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	dataDir := t.TempDir()
	var acked, tried [2]int64
	for round := 0; round < 3; round++ {
		cmd, db := openChild(t, dataDir, "")
		if round == 0 {
			mustExec(t, db, "CREATE DATABASE crash", "CREATE TABLE crash.c (id INT PRIMARY KEY, n INT NOT NULL)", "INSERT INTO crash.c VALUES (0, 0), (1, 0)")
		}
		checkCounters(t, db, acked, tried)
		var mu sync.Mutex
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					id := (w + i) % 2
					mu.Lock()
					tried[id]++
					mu.Unlock()
					if _, err := db.Exec("UPDATE crash.c SET n = n + 1 WHERE id = ?", id); err != nil {
						return // the server is gone
					}
					mu.Lock()
					acked[id]++
					mu.Unlock()
				}
			}()
		}
		time.Sleep(400 * time.Millisecond)
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		close(stop)
		wg.Wait()
		if acked[0]+acked[1] == 0 {
			t.Fatalf("round %d: no increment was acknowledged before the kill", round)
		}
		t.Logf("round %d: %d and %d increments acknowledged in all, %d and %d tried", round, acked[0], acked[1], tried[0], tried[1])
		db.Close()
	}
	db := restarted(t, dataDir, "")
	checkCounters(t, db, acked, tried)
}

// checkCounters fails the test unless each counter of crash.c holds at
// least its acknowledged increments and at most the tried ones.
func checkCounters(t *testing.T, db *sql.DB, acked, tried [2]int64) {
	t.Helper()
	for id := range 2 {
		var n int64
		if err := db.QueryRow("SELECT n FROM crash.c WHERE id = ?", id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n < acked[id] || n > tried[id] {
			t.Fatalf("counter %d is %d after the crash: %d increments were acknowledged and %d tried", id, n, acked[id], tried[id])
		}
	}
}
