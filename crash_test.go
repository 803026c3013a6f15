package verso

import (
	"bufio"
	"context"
	"fmt"
	"math/rand"
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
	if os.Getenv("VERSO_CRASH_NURSERY") != "" {
		// Nursery collections and checkpoints every few groups; the
		// child says how many collections finished.
		db.nurseryAt, db.redoCheckpoint = 4<<10, 16<<10
		go func() {
			for seen := int64(0); ; time.Sleep(time.Millisecond) {
				if n := db.nurseryRuns.Load(); n > seen {
					seen = n
					say("nursery", n)
				}
			}
		}()
	}
	if os.Getenv("VERSO_CRASH_GC") != "" {
		// Collections, one after another, under the increments: the
		// kill lands at any point of one.
		go func() {
			for n := int64(1); ; n++ {
				if _, err := db.GC(ctx, GCOptions{}); err != nil {
					fmt.Println("error", err)
					os.Exit(1)
				}
				say("gc", n)
			}
		}()
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
func TestCrashDuringIncrements(t *testing.T) { crashIncrements(t, false, false, 3) }

// TestCrashDuringNurseryCollections is TestCrashDuringIncrements with
// nursery collections and redo checkpoints every few groups (nursery.go):
// the kills land among them, and the tree nodes the nursery held are lost
// with the process.
func TestCrashDuringNurseryCollections(t *testing.T) { crashIncrements(t, false, true, 4) }

// TestCrashDuringGC is TestCrashDuringIncrements with garbage collections
// running back to back beside the increments, over a database large
// enough that a collection takes a while, so that the kills land at
// random points of collections: after each, every acknowledged increment
// is there and the database checks clean.
func TestCrashDuringGC(t *testing.T) { crashIncrements(t, true, false, 6) }

func crashIncrements(t *testing.T, gc, nursery bool, rounds int) {
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
	if gc {
		// Filler, so that a collection has something to copy.
		must(t, txn.CreateTable(ctx, "filler", &Schema{
			Columns:    []Column{{Name: "id", Type: "int", Kind: KindInt}, {Name: "s", Type: "text", Kind: KindString}},
			PrimaryKey: []int{0},
		}))
		for i := range 20000 {
			must(t, txn.Insert(ctx, "filler", Int(int64(i)), String(strings.Repeat("x", i%200))))
		}
	}
	must(t, txn.Commit(ctx))
	must(t, db.Close())
	collections := 0

	var acked, tried [2]int64
	for round := range rounds {
		cmd := exec.Command(os.Args[0], "-test.run", "^$")
		cmd.Env = append(os.Environ(), "VERSO_CRASH_DIR="+dir)
		if gc {
			cmd.Env = append(cmd.Env, "VERSO_CRASH_GC=1")
		}
		if nursery {
			cmd.Env = append(cmd.Env, "VERSO_CRASH_NURSERY=1")
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		killed := false
		lines := make(chan string, 1024)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		// The kill comes a while after the child's first acknowledged
		// commit (and, in the last round of the collections' test, its
		// first collection if none finished in earlier rounds), however
		// slow its start (the race detector's builds are).
		wait := time.Duration(200+100*round) * time.Millisecond
		if gc {
			wait = time.Duration(300+rand.Intn(700)) * time.Millisecond
		}
		var deadline <-chan time.Time
		roundAcks := 0
		arm := func() {
			ready := roundAcks > 0 && (!(gc || nursery) || round < rounds-1 || collections > 0)
			if deadline == nil && ready && !killed {
				deadline = time.After(wait)
			}
		}
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
					roundAcks++
				case "gc", "nursery":
					collections++
				default:
					t.Fatalf("child: %s", l)
				}
				arm()
			case <-deadline:
				cmd.Process.Kill()
				deadline, killed = nil, true
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
		if db.redoFS.LogPosition() == 0 {
			t.Fatalf("round %d: no commit went through the redo log", round)
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
		check.Rollback()
		if gc || nursery {
			rep, err := db.Check(ctx, CheckOptions{})
			must(t, err)
			if !rep.OK() {
				t.Fatalf("round %d: check after the kill: %v", round, rep.Problems)
			}
		}
		must(t, db.Close())
	}
	if (gc || nursery) && collections == 0 {
		t.Fatal("no collection finished before the kills: they all landed in the first")
	}
	if gc || nursery {
		t.Logf("%d collections finished", collections)
	}
}
