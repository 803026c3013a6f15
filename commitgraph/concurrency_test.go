package commitgraph

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/verso-db/verso/chunks"
)

// TestConcurrentCommits runs writers on their own branches and writers
// racing on one shared branch. Every acknowledged commit must be on its
// branch's first-parent chain afterwards (no lost update), and a race on
// the shared branch must end in ErrBranchMoved for the loser, never in a
// silent overwrite. Run it with -race.
func TestConcurrentCommits(t *testing.T) {
	stores(t, func(t *testing.T, cs chunks.Store) {
		ctx := context.Background()
		db := New(cs)
		c0 := mustInit(t, db)
		const own, shared, perWriter = 3, 3, 25
		for i := range own {
			if err := db.CreateBranch(ctx, fmt.Sprint("own", i), c0.Addr); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.CreateBranch(ctx, "shared", c0.Addr); err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		acked := map[string][]chunks.Address{}
		conflicts := 0
		var wg sync.WaitGroup
		errs := make(chan error, own+shared)
		for i := range own {
			wg.Add(1)
			go func() {
				defer wg.Done()
				branch := fmt.Sprint("own", i)
				head := c0.Addr
				for j := range perWriter {
					c, err := db.CommitRoot(ctx, CommitOptions{Branch: branch, ExpectedHead: head, Root: testAddr(fmt.Sprint(branch, j)), Meta: meta(fmt.Sprint(branch, j))})
					if err != nil {
						errs <- fmt.Errorf("%s commit %d: %w", branch, j, err)
						return
					}
					head = c.Addr
					mu.Lock()
					acked[branch] = append(acked[branch], c.Addr)
					mu.Unlock()
				}
			}()
		}
		for i := range shared {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := 0; j < perWriter; {
					head, err := db.Head(ctx, "shared")
					if err != nil {
						errs <- err
						return
					}
					c, err := db.CommitRoot(ctx, CommitOptions{Branch: "shared", ExpectedHead: head, Root: testAddr(fmt.Sprint(i, j)), Meta: meta(fmt.Sprint("shared ", i, " ", j))})
					if errors.Is(err, ErrBranchMoved) {
						mu.Lock()
						conflicts++
						mu.Unlock()
						continue
					}
					if err != nil {
						errs <- err
						return
					}
					j++
					mu.Lock()
					acked["shared"] = append(acked["shared"], c.Addr)
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		for branch, commits := range acked {
			head, err := db.Head(ctx, branch)
			if err != nil {
				t.Fatal(err)
			}
			// The first-parent chain from the head down to c0.
			chain := map[chunks.Address]bool{}
			for a := head; a != c0.Addr; {
				chain[a] = true
				c, err := db.ReadCommit(ctx, a)
				if err != nil {
					t.Fatal(err)
				}
				a = c.Parents[0]
			}
			if len(chain) != len(commits) {
				t.Fatalf("%s: %d commits on the chain, %d acknowledged", branch, len(chain), len(commits))
			}
			for _, a := range commits {
				if !chain[a] {
					t.Fatalf("%s: acknowledged commit %s was lost", branch, a)
				}
			}
		}
		if err := db.Check(ctx); err != nil {
			t.Fatal(err)
		}
		t.Logf("shared-branch conflicts %d, ref retries %d", conflicts, db.Retries())
	})
}
