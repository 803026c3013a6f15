package verso_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"sort"
	"testing"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/internal/testseed"
)

// workspaceLines returns table's workspace on main as "staged? from->to"
// lines of k:v rows (- for none).
func workspaceLines(t *testing.T, db *verso.DB, table string) []string {
	t.Helper()
	ctx := context.Background()
	txn, err := db.Begin(ctx, "main")
	ok(t, err)
	defer txn.Rollback()
	w, err := txn.Workspace(ctx, table)
	ok(t, err)
	if w == nil {
		return nil
	}
	var out []string
	for _, c := range w.Changes {
		out = append(out, fmt.Sprintf("%v %s->%s", c.Staged, kvText(w.FromRow(c)), kvText(w.ToRow(c))))
	}
	return out
}

func kvText(row []verso.Value) string {
	if row == nil {
		return "-"
	}
	var s string
	for i, v := range row {
		if i > 0 {
			s += ":"
		}
		if v.IsNull() {
			s += "null"
		} else {
			s += fmt.Sprint(v.AsInt())
		}
	}
	return s
}

// workspaceOp applies fn to the changes of table's workspace on main
// that pick selects.
func workspaceOp(t *testing.T, db *verso.DB, table string, pick func(i int, c verso.WorkspaceChange) bool,
	fn func(ctx context.Context, txn *verso.Txn, cs []verso.WorkspaceChange) error) error {
	t.Helper()
	ctx := context.Background()
	txn, err := db.Begin(ctx, "main")
	ok(t, err)
	w, err := txn.Workspace(ctx, table)
	ok(t, err)
	var cs []verso.WorkspaceChange
	for i, c := range w.Changes {
		if pick(i, c) {
			cs = append(cs, c)
		}
	}
	if err := fn(ctx, txn, cs); err != nil {
		txn.Rollback()
		return err
	}
	return txn.Commit(ctx)
}

func stageOp(ctx context.Context, txn *verso.Txn, cs []verso.WorkspaceChange) error {
	return txn.StageWorkspace(ctx, "t", cs)
}

func revertOp(ctx context.Context, txn *verso.Txn, cs []verso.WorkspaceChange) error {
	return txn.RevertWorkspace(ctx, "t", cs)
}

// TestWorkspace: a table's staged changes, then its unstaged ones, each
// in key order; staging and unstaging single rows; undoing unstaged ones.
func TestWorkspace(t *testing.T) {
	db := memDB(t)
	createKV(t, db, "main", "t")
	for k := int64(1); k <= 3; k++ {
		put(t, db, "main", "t", k, k*10)
	}
	commitAll(t, db, "main", "first")
	if got := workspaceLines(t, db, "t"); got != nil {
		t.Fatalf("clean workspace: %q", got)
	}
	if got := workspaceLines(t, db, "nope"); got != nil {
		t.Fatalf("workspace of no table: %q", got)
	}
	put(t, db, "main", "t", 2, 21)
	write(t, db, "main", func(ctx context.Context, txn *verso.Txn) error { return txn.Stage(ctx, "t") })
	put(t, db, "main", "t", 4, 40)
	write(t, db, "main", func(ctx context.Context, txn *verso.Txn) error {
		_, err := txn.Delete(ctx, "t", verso.Int(1))
		return err
	})
	put(t, db, "main", "t", 2, 22)
	want := []string{"true 2:20->2:21", "false 1:10->-", "false 2:21->2:22", "false 4:40->-"}
	want[3] = "false -->4:40"
	if got := workspaceLines(t, db, "t"); !slices.Equal(got, want) {
		t.Fatalf("workspace: %q, want %q", got, want)
	}

	// Stage the added row, unstage the modified one.
	ok(t, workspaceOp(t, db, "t", func(_ int, c verso.WorkspaceChange) bool { return c.From == nil }, stageOp))
	want = []string{"true -->4:40", "true 2:20->2:21", "false 1:10->-", "false 2:21->2:22"}
	sort.Strings(want[:2])
	got := workspaceLines(t, db, "t")
	sort.Strings(got[:2])
	if !slices.Equal(got, want) {
		t.Fatalf("after staging the added row: %q, want %q", got, want)
	}
	ok(t, workspaceOp(t, db, "t", func(_ int, c verso.WorkspaceChange) bool { return c.Staged && c.From != nil }, stageOp))
	if got, want := workspaceLines(t, db, "t"), []string{"true -->4:40", "false 1:10->-", "false 2:20->2:22"}; !slices.Equal(got, want) {
		t.Fatalf("after unstaging the modified row: %q, want %q", got, want)
	}

	// Undo the deletion; an undo of a staged change is refused.
	ok(t, workspaceOp(t, db, "t", func(_ int, c verso.WorkspaceChange) bool { return !c.Staged && c.To == nil }, revertOp))
	if got, want := workspaceLines(t, db, "t"), []string{"true -->4:40", "false 2:20->2:22"}; !slices.Equal(got, want) {
		t.Fatalf("after undoing the deletion: %q, want %q", got, want)
	}
	if v := value(t, db, "main", "t", 1); v != 10 {
		t.Fatalf("row 1 after the undo: %d", v)
	}
	err := workspaceOp(t, db, "t", func(_ int, c verso.WorkspaceChange) bool { return c.Staged }, revertOp)
	if !errors.Is(err, verso.ErrWorkspaceMoved) {
		t.Fatalf("undo of a staged change: %v", err)
	}

	// A change read before the branch moved is refused.
	ctx := context.Background()
	txn, err := db.Begin(ctx, "main")
	ok(t, err)
	w, err := txn.Workspace(ctx, "t")
	ok(t, err)
	put(t, db, "main", "t", 2, 23)
	if err := txn.StageWorkspace(ctx, "t", w.Changes[1:]); !errors.Is(err, verso.ErrWorkspaceMoved) {
		t.Fatalf("staging a change that moved: %v", err)
	}
	txn.Rollback()

	// Stage everything: the branch commits what was staged.
	ok(t, workspaceOp(t, db, "t", func(_ int, c verso.WorkspaceChange) bool { return !c.Staged }, stageOp))
	if got := status(t, db, "main"); !slices.Equal(got, []string{"t staged modified"}) {
		t.Fatalf("status after staging everything: %q", got)
	}
}

// TestWorkspaceNewAndKeyless: a table new in the working root is staged row
// by row into an empty staged table; a keyless table's copies are a change
// each; a table whose columns changed cannot be edited row by row.
func TestWorkspaceNewAndKeyless(t *testing.T) {
	db := memDB(t)
	createKV(t, db, "main", "t")
	put(t, db, "main", "t", 1, 1)
	put(t, db, "main", "t", 2, 2)
	ok(t, workspaceOp(t, db, "t", func(i int, _ verso.WorkspaceChange) bool { return i == 0 }, stageOp))
	if got, want := workspaceLines(t, db, "t"), []string{"true -->1:1", "false -->2:2"}; !slices.Equal(got, want) {
		t.Fatalf("new table, one row staged: %q, want %q", got, want)
	}
	if got := status(t, db, "main"); !slices.Equal(got, []string{"t staged new table", "t modified"}) {
		t.Fatalf("status: %q", got)
	}

	keyless := &verso.Schema{Columns: []verso.Column{{Name: "a", Type: "int", Kind: verso.KindInt, Nullable: true}}}
	write(t, db, "main", func(ctx context.Context, txn *verso.Txn) error {
		if err := txn.CreateTable(ctx, "k", keyless); err != nil {
			return err
		}
		for range 3 {
			if err := txn.Insert(ctx, "k", verso.Int(7)); err != nil {
				return err
			}
		}
		return nil
	})
	if got, want := workspaceLines(t, db, "k"), []string{"false -->7", "false -->7", "false -->7"}; !slices.Equal(got, want) {
		t.Fatalf("keyless copies: %q, want %q", got, want)
	}
	stageK := func(ctx context.Context, txn *verso.Txn, cs []verso.WorkspaceChange) error {
		return txn.StageWorkspace(ctx, "k", cs)
	}
	ok(t, workspaceOp(t, db, "k", func(i int, _ verso.WorkspaceChange) bool { return i < 2 }, stageK))
	if got, want := workspaceLines(t, db, "k"), []string{"true -->7", "true -->7", "false -->7"}; !slices.Equal(got, want) {
		t.Fatalf("two copies staged: %q, want %q", got, want)
	}

	commitAll(t, db, "main", "both")
	write(t, db, "main", func(ctx context.Context, txn *verso.Txn) error {
		s := kvSchema()
		s.Columns = append(s.Columns, verso.Column{Name: "w", Type: "int", Kind: verso.KindInt, Nullable: true})
		if err := txn.CreateTable(ctx, "t2", s); err != nil {
			return err
		}
		return nil
	})
	ctx := context.Background()
	txn, err := db.Begin(ctx, "main")
	ok(t, err)
	w, err := txn.Workspace(ctx, "t")
	ok(t, err)
	if !w.Modifiable || len(w.Changes) != 0 {
		t.Fatalf("clean table: modifiable %v, %d changes", w.Modifiable, len(w.Changes))
	}
	txn.Rollback()
}

// TestWorkspaceModel checks workspaces and their edits against a model: three
// maps (head, staged, working) of a table's rows, whose workspace is the
// rows that differ between head and staged, then staged and working.
func TestWorkspaceModel(t *testing.T) {
	seed := testseed.Seed(t)
	rng := rand.New(rand.NewSource(int64(seed)))
	db := memDB(t)
	createKV(t, db, "main", "t")
	commitAll(t, db, "main", "table")
	var head, staged, working = map[int64]int64{}, map[int64]int64{}, map[int64]int64{}
	clone := func(m map[int64]int64) map[int64]int64 {
		out := map[int64]int64{}
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	modelLines := func() []string {
		var out []string
		for _, p := range []struct {
			staged   bool
			from, to map[int64]int64
		}{{true, head, staged}, {false, staged, working}} {
			keys := map[int64]bool{}
			for k := range p.from {
				keys[k] = true
			}
			for k := range p.to {
				keys[k] = true
			}
			var ks []int64
			for k := range keys {
				ks = append(ks, k)
			}
			slices.Sort(ks)
			for _, k := range ks {
				fv, inF := p.from[k]
				tv, inT := p.to[k]
				if inF && inT && fv == tv {
					continue
				}
				f, to := "-", "-"
				if inF {
					f = fmt.Sprintf("%d:%d", k, fv)
				}
				if inT {
					to = fmt.Sprintf("%d:%d", k, tv)
				}
				out = append(out, fmt.Sprintf("%v %s->%s", p.staged, f, to))
			}
		}
		return out
	}
	for step := 0; step < 150; step++ {
		k := int64(rng.Intn(8))
		switch op := rng.Intn(10); {
		case op < 4: // write a row
			v := int64(rng.Intn(3))
			put(t, db, "main", "t", k, v)
			working[k] = v
		case op < 5: // delete a row
			write(t, db, "main", func(ctx context.Context, txn *verso.Txn) error {
				_, err := txn.Delete(ctx, "t", verso.Int(k))
				return err
			})
			delete(working, k)
		case op < 9: // stage, unstage or undo random changes
			lines := workspaceLines(t, db, "t")
			if len(lines) == 0 {
				continue
			}
			chosen := map[int]bool{}
			for range 1 + rng.Intn(len(lines)) {
				chosen[rng.Intn(len(lines))] = true
			}
			revert := op == 8
			err := workspaceOp(t, db, "t", func(i int, c verso.WorkspaceChange) bool {
				return chosen[i] && (!revert || !c.Staged)
			}, func(ctx context.Context, txn *verso.Txn, cs []verso.WorkspaceChange) error {
				for _, c := range cs {
					row := c.To
					if row == nil {
						row = c.From
					}
					key := row[0].AsInt()
					switch {
					case revert:
						if v, in := staged[key]; in {
							working[key] = v
						} else {
							delete(working, key)
						}
					case c.Staged:
						if v, in := head[key]; in {
							staged[key] = v
						} else {
							delete(staged, key)
						}
					default:
						if v, in := working[key]; in {
							staged[key] = v
						} else {
							delete(staged, key)
						}
					}
				}
				if revert {
					return revertOp(ctx, txn, cs)
				}
				return stageOp(ctx, txn, cs)
			})
			if err != nil {
				t.Fatalf("seed %d step %d: %v", seed, step, err)
			}
		default: // commit what is staged
			ctx := context.Background()
			txn, err := db.Begin(ctx, "main")
			ok(t, err)
			if _, err := txn.CommitChanges(ctx, verso.CommitOptions{Message: "step", Author: jane, AllowEmpty: true}); err != nil {
				t.Fatalf("seed %d step %d: commit: %v", seed, step, err)
			}
			head = clone(staged)
		}
		if got, want := workspaceLines(t, db, "t"), modelLines(); !slices.Equal(got, want) {
			t.Fatalf("seed %d step %d: workspace %q, want %q", seed, step, got, want)
		}
	}
}
