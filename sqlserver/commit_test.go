package sqlserver

import (
	"fmt"
	"testing"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
)

// TestGroupCommit holds the database's commit lock while six sessions
// commit: the first becomes the leader and waits; the other five queue
// behind it and then go as one group, one store commit for them. The last
// of the group deletes the row of a table without a primary key that an
// earlier one of the group deleted (such rows take no locks) and fails
// alone with a serialization failure.
func TestGroupCommit(t *testing.T) {
	p, cs, st := countingProvider(t)
	env := newEnv(t, p)
	setup := env.session("db")
	env.exec(setup, "CREATE TABLE t (pk INT PRIMARY KEY, v INT, u INT UNIQUE)")
	env.exec(setup, "INSERT INTO t VALUES (100, 0, 100)")
	env.exec(setup, "CREATE TABLE bag (a INT)")
	env.exec(setup, "INSERT INTO bag VALUES (1)")

	// Six sessions with a transaction each, written but not committed.
	sessions := make([]*testSession, 6)
	for i := range sessions {
		ctx := env.session("db")
		env.exec(ctx, "START TRANSACTION")
		if i < 5 {
			env.exec(ctx, fmt.Sprintf("INSERT INTO t VALUES (%d, %d, %d)", i, i, i))
		}
		if i >= 4 {
			env.exec(ctx, "DELETE FROM bag WHERE a = 1") // sessions 4 and 5 clash
		}
		sessions[i] = &testSession{ctx: ctx, done: make(chan error, 1)}
	}
	before := cs.commits.Load()
	st.commitMu.Lock()
	commit := func(s *testSession) {
		go func() {
			_, err := env.query(s.ctx, "COMMIT")
			s.done <- err
		}()
	}
	commit(sessions[0])
	waitFor(t, func() bool {
		st.commits.mu.Lock()
		defer st.commits.mu.Unlock()
		return st.commits.leading && len(st.commits.waiting) == 0
	})
	for i, s := range sessions[1:] {
		commit(s)
		waitFor(t, func() bool { st.commits.mu.Lock(); defer st.commits.mu.Unlock(); return len(st.commits.waiting) == i+1 })
	}
	st.commitMu.Unlock()
	for i, s := range sessions {
		err := <-s.done
		if i == 5 {
			if err == nil || !sql.ErrLockDeadlock.Is(err) {
				t.Fatalf("the clashing transaction committed: %v", err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("session %d: %v", i, err)
		}
	}
	if n := cs.commits.Load() - before; n != 2 {
		t.Fatalf("six commits (one failing) made %d store commits, want 2 (the leader's, then the group of four)", n)
	}
	env.check(setup, "SELECT pk, v FROM t ORDER BY pk", "[0 0] [1 1] [2 2] [3 3] [4 4] [100 0]")
}

type testSession struct {
	ctx  *sql.Context
	done chan error
}

// waitFor polls cond for up to ten seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(time.Millisecond)
	}
}
