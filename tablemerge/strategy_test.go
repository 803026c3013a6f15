package tablemerge

import (
	"context"
	"errors"
	"testing"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
)

// TestMergeTableStrategy: with Options.Tables the driver hands every table
// both sides changed to it (and only those), Refuse decides the other names
// both changed, and KeepConflicts lets a side hold conflicts entries: the
// options the engine's transaction commits run the driver with.
func TestMergeTableStrategy(t *testing.T) {
	f := newFixture(t)
	s := testSchema()
	t0 := f.table(s, row(1, 1, "a"))
	base := f.root(map[string]any{"t": t0, "u": t0, "views/v": "v0"})
	ours := f.root(map[string]any{"t": f.table(s, row(1, 2, "a")), "u": t0, "views/v": "v0", ConflictsPrefix + "t": "c"})
	theirs := f.root(map[string]any{"t": f.table(s, row(1, 3, "a")), "u": f.table(s, row(2, 2, "b")), "views/v": "v0"})

	if _, err := Merge(f.ctx, f.ns, base, ours, theirs, Options{Collations: testCollations}); !errors.Is(err, ErrUnresolvedConflicts) {
		t.Fatalf("a side with conflicts merged without KeepConflicts: %v", err)
	}
	var asked []string
	want := chunks.Address{7}
	opts := Options{
		Collations:    testCollations,
		KeepConflicts: true,
		Tables: func(ctx context.Context, name string, c commitgraph.RootConflict) (chunks.Address, error) {
			asked = append(asked, name)
			return want, nil
		},
	}
	res, err := Merge(f.ctx, f.ns, base, ours, theirs, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || asked[0] != "t" {
		t.Fatalf("the strategy was asked for %v, want [t] (u changed on one side only)", asked)
	}
	if got, _, _ := res.Root.Get(f.ctx, TablePrefix+"t"); got != want {
		t.Fatalf("t is %s, want the strategy's %s", got, want)
	}

	theirs = f.root(map[string]any{"t": t0, "u": t0, "views/v": "v1"})
	ours = f.root(map[string]any{"t": t0, "u": t0, "views/v": "v2"})
	refused := errors.New("refused")
	opts.Refuse = func(c commitgraph.RootConflict) error {
		if c.Name != "views/v" {
			t.Errorf("Refuse asked about %q", c.Name)
		}
		return refused
	}
	if _, err := Merge(f.ctx, f.ns, base, ours, theirs, opts); !errors.Is(err, refused) {
		t.Fatalf("a view both changed merged past Refuse: %v", err)
	}
}
