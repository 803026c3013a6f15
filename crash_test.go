package verso

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The child of TestCrashDuringIncrements: it opens the database in
// VERSO_CRASH_DIR and increments its two counters from four goroutines,
// each increment a transaction of its own (GetForUpdate, Put, Commit),
// printing "tried <id>" before and "acked <id>" after each commit returns,
// until it is killed.
func init() {
	dir := os.Getenv("VERSO_CRASH_DIR")
	if dir == "" {
		return
	}
	ctx := context.Background()
	db, err := Open(dir, Options{})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	var mu sync.Mutex
	say := func(what string, id int64) {
		mu.Lock()
		fmt.Printf("%s %d\n", what, id)
		mu.Unlock()
	}
	for w := range 4 {
		go func() {
			for i := 0; ; i++ {
				id := int64((w + i) % 2)
				txn, err := db.Begin(ctx, "")
				if err != nil {
					continue
				}
				row, _, err := txn.GetForUpdate(ctx, "c", Int(id))
				if err == nil {
					err = txn.Put(ctx, "c", Int(id), Int(row[1].AsInt()+1))
				}
				if err != nil {
					txn.Rollback()
					continue
				}
				say("tried", id)
				if err := txn.Commit(ctx); err == nil {
					say("acked", id)
				}
			}
		}()
	}
	select {}
}

// TestCrashDuringIncrements kills a process that commits through the
// engine (SIGKILL, three rounds at random moments) and reopens its
// database: each counter holds at least the increments whose Commit
// returned and at most those that were tried, so an acknowledged commit
// survives a crash and nothing half-written appears.
func TestCrashDuringIncrements(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	dir := t.TempDir()
	ctx := context.Background()
	db, err := Init(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	txn, _ := db.Begin(ctx, "")
	must(t, txn.CreateTable(ctx, "c", &Schema{
		Columns:    []Column{{Name: "id", Type: "int", Kind: KindInt}, {Name: "n", Type: "int", Kind: KindInt}},
		PrimaryKey: []int{0},
	}))
	must(t, txn.Insert(ctx, "c", Int(0), Int(0)))
	must(t, txn.Insert(ctx, "c", Int(1), Int(0)))
	must(t, txn.Commit(ctx))
	must(t, db.Close())

	var acked, tried [2]int64
	for round := range 3 {
		cmd := exec.Command(os.Args[0], "-test.run", "^$")
		cmd.Env = append(os.Environ(), "VERSO_CRASH_DIR="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string, 1024)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		deadline := time.After(time.Duration(200+100*round) * time.Millisecond)
	read:
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					break read
				}
				what, id, _ := strings.Cut(l, " ")
				n, _ := strconv.Atoi(id)
				switch what {
				case "tried":
					tried[n]++
				case "acked":
					acked[n]++
				default:
					t.Fatalf("child: %s", l)
				}
			case <-deadline:
				cmd.Process.Kill()
				deadline = nil
			}
		}
		cmd.Wait()
		if acked[0]+acked[1] == 0 {
			t.Fatalf("round %d: no commit was acknowledged before the kill", round)
		}
		t.Logf("round %d: %v acknowledged in all, %v tried", round, acked, tried)

		db, err := Open(dir, Options{})
		if err != nil {
			t.Fatalf("reopening after the kill: %v", err)
		}
		check, _ := db.Begin(ctx, "")
		for id := range int64(2) {
			row, _, err := check.Get(ctx, "c", Int(id))
			if err != nil {
				t.Fatal(err)
			}
			if n := row[1].AsInt(); n < acked[id] || n > tried[id] {
				t.Fatalf("round %d: counter %d is %d after %d acknowledged and %d tried increments", round, id, n, acked[id], tried[id])
			}
			// The next round counts from what is stored.
			acked[id], tried[id] = row[1].AsInt(), row[1].AsInt()
		}
		must(t, db.Close())
	}
}
