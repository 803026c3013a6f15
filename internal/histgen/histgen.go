// Package histgen generates commit histories with table data, written
// directly through the commitgraph and tables APIs: for the system-table
// tests and the history benchmark (cmd/versobench-history).
//
// A history has one SQL table, t (pk bigint primary key, v bigint,
// s varchar(64), f double), stored as package sqlserver stores tables (the
// root value entry "tables/t"). Each commit updates a few rows and now and
// then inserts or deletes one. Side branches start from main, get a few
// commits and are merged back (the merge's root takes main's table with the
// branch's changes applied). Optionally some commits change the event log's
// root entries ("events/...") and one commit adds a column to t. A random
// shape (Options.Random) can grow branches in long runs and make octopus
// merges (Options.Runs, Options.Octopus).
//
// Build records what it did as History.Ops: each commit's row changes,
// metadata and parents' branches, and the branches' starts and ends. SQL
// renders them as statements with Dolt's version-control procedures, so
// that another server (Dolt, or verso over SQL) can be given the same
// history: cmd/versobench-history times Dolt's system tables on it.
//
// # Caveats
//
//   - Commits are written with WriteCommit and refs move once per batch
//     (Options.RefsEvery), so a long history costs few store commits (each
//     a sync on a file store). Nothing is durable before Build returns.
//   - The merges are not three-way merges: the branch's changes win. SQL
//     writes those rows again after the server's merge, so that its t is
//     Build's.
//   - The Ops are a record, not a plan: a history is replayed elsewhere
//     after Build has written it here. The replay's commits have other
//     hashes (their committer is the session's user). Ops hold every row
//     written, about 0.9 KB a commit: a caller done with them sets
//     History.Ops to nil.
package histgen

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tables"
)

// Table is the name of the generated table.
const Table = "t"

// Options shape a history.
type Options struct {
	// Commits is the number of commits to write (merges included).
	Commits int
	// Rows is the number of rows the table starts with.
	Rows int
	// Seed makes the history repeatable.
	Seed uint64
	// BranchEvery starts a side branch from main every BranchEvery main
	// commits (0: never); it gets BranchLen commits and is merged back.
	BranchEvery, BranchLen int
	// KeepBranches leaves every side branch in place (named side<i>)
	// after its merge; otherwise only the last one is kept.
	KeepBranches bool
	// Random, if set, makes the shape random instead: commits on random
	// branches, new branches at random commits of main, merges between
	// branches in either direction.
	Random bool
	// Runs, with Random, makes each step on a branch a run of 1 to Runs
	// commits (0 or 1: one commit), so branches grow to very different
	// lengths before they merge: merges whose parents' heights differ a
	// lot, both ways. Merges are then more frequent, half of them into
	// main.
	Runs int
	// Octopus, with Random, makes about half the merges take a further
	// branch, unrelated to the other two: three parents.
	Octopus bool
	// EventsEvery changes an events/ root entry every EventsEvery commits
	// (0: never).
	EventsEvery int
	// AddColumnAt adds a nullable column "extra bigint" to t at the
	// commit of that index on main (0: never).
	AddColumnAt int
	// RefsEvery moves the refs after every RefsEvery commits (0: at the
	// end only).
	RefsEvery int
}

// History is what Build wrote.
type History struct {
	// Commits holds every commit written, in order.
	Commits []*commitgraph.Commit
	// Branches maps each branch to its head.
	Branches map[string]chunks.Address
	// Ops are the steps that wrote the history, in order: one OpCommit or
	// OpMerge per commit of Commits, and the branches' starts and ends.
	Ops []Op
}

// Schema returns t's schema, with the extra column if extra.
func Schema(extra bool) *tables.Schema {
	s := &tables.Schema{
		Columns: []tables.Column{
			{Name: "pk", Type: "bigint", Kind: prolly.KindInt},
			{Name: "v", Type: "bigint", Kind: prolly.KindInt, Nullable: true},
			{Name: "s", Type: "varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_bin", Kind: prolly.KindString, Nullable: true},
			{Name: "f", Type: "double", Kind: prolly.KindFloat64, Nullable: true},
		},
		PrimaryKey: []int{0},
	}
	if extra {
		s.Columns = append(s.Columns, tables.Column{Name: "extra", Type: "bigint", Kind: prolly.KindInt, Nullable: true})
	}
	return s
}

type gen struct {
	ctx    context.Context
	g      *commitgraph.DB
	ns     *prolly.NodeStore
	rng    *rand.Rand
	o      Options
	h      *History
	n      int // commits written
	nextPK int64
	extra  bool
	base   time.Time
	moved  int
	// op collects the changes of the commit being made.
	op Op
}

// Build writes a history of o.Commits commits on top of main's head in g.
func Build(ctx context.Context, g *commitgraph.DB, o Options) (*History, error) {
	gn := &gen{ctx: ctx, g: g, ns: g.NodeStore(), rng: rand.New(rand.NewPCG(o.Seed, 7)), o: o,
		h: &History{Branches: map[string]chunks.Address{}}, base: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	head, err := g.Head(ctx, "main")
	if err != nil {
		return nil, err
	}
	gn.h.Branches["main"] = head
	if err := gn.run(); err != nil {
		return nil, err
	}
	return gn.h, gn.moveRefs()
}

func (gn *gen) meta(msg string) commitgraph.Meta {
	i := gn.n
	m := commitgraph.Meta{
		Author:  commitgraph.Signature{Name: fmt.Sprintf("author%d", i%3), Email: fmt.Sprintf("a%d@x", i%3)},
		Time:    gn.base.Add(time.Duration(i/3) * time.Second),
		Message: fmt.Sprintf("%s %d", msg, i),
	}
	if i%4 == 0 {
		m.Committer = commitgraph.Signature{Name: "bot", Email: "bot@x"}
	}
	return m
}

// moveRefs writes the branch heads in one ref update.
func (gn *gen) moveRefs() error {
	err := gn.g.UpdateRefs(gn.ctx, func(tx *commitgraph.RefTx) error {
		for b, a := range gn.h.Branches {
			tx.Set("refs/heads/"+b, a)
		}
		return nil
	})
	gn.moved = gn.n
	return err
}

// commit writes a commit of root on branch (merging the heads of theirs,
// if any) and moves the branch in memory.
func (gn *gen) commit(branch string, root commitgraph.RootValue, theirs []string, msg string) error {
	parents := []chunks.Address{gn.h.Branches[branch]}
	for _, th := range theirs {
		parents = append(parents, gn.h.Branches[th])
	}
	op := gn.op
	gn.op = Op{}
	op.Kind, op.Branch, op.Theirs, op.Meta = OpCommit, branch, theirs, gn.meta(msg)
	if len(theirs) > 0 {
		op.Kind = OpMerge
	}
	c, err := gn.g.WriteCommit(gn.ctx, root.Address(), parents, op.Meta)
	if err != nil {
		return err
	}
	gn.h.Commits = append(gn.h.Commits, c)
	gn.h.Ops = append(gn.h.Ops, op)
	gn.h.Branches[branch] = c.Addr
	gn.n++
	if gn.o.RefsEvery > 0 && gn.n-gn.moved >= gn.o.RefsEvery {
		return gn.moveRefs()
	}
	return nil
}

// record notes a row change of the commit being made.
func (gn *gen) record(row []tables.Value, del bool) {
	gn.op.Changes = append(gn.op.Changes, Change{Row: row, Delete: del})
}

// branch starts a branch at from's head.
func (gn *gen) branch(name, from string) {
	gn.h.Branches[name] = gn.h.Branches[from]
	gn.h.Ops = append(gn.h.Ops, Op{Kind: OpBranch, Branch: name, From: from})
}

// forget drops a branch from the ones Build moves.
func (gn *gen) forget(name string) {
	delete(gn.h.Branches, name)
	gn.h.Ops = append(gn.h.Ops, Op{Kind: OpDeleteBranch, Branch: name})
}

func (gn *gen) rootOf(branch string) (commitgraph.RootValue, error) {
	c, err := gn.g.ReadCommit(gn.ctx, gn.h.Branches[branch])
	if err != nil {
		return commitgraph.RootValue{}, err
	}
	return gn.g.OpenRoot(gn.ctx, c.Root)
}

func (gn *gen) table(root commitgraph.RootValue) (*tables.Table, error) {
	a, ok, err := root.Get(gn.ctx, commitgraph.TablePrefix+Table)
	if err != nil || !ok {
		return nil, err
	}
	return tables.Load(gn.ctx, gn.ns, a, nil)
}

func (gn *gen) row(pk int64) []tables.Value {
	r := []tables.Value{prolly.Int(pk), prolly.Int(gn.rng.Int64N(1000)),
		prolly.String(fmt.Sprintf("s%d", gn.rng.IntN(100))), prolly.Float64(float64(gn.rng.IntN(1000)) / 8)}
	if gn.rng.IntN(10) == 0 {
		r[3] = prolly.Null()
	}
	if gn.extra {
		r = append(r, prolly.Int(gn.rng.Int64N(10)))
	}
	return r
}

// edit returns root with t changed a little (created first if missing,
// and rebuilt with the extra column when it is time), and maybe an
// events/ entry changed.
func (gn *gen) edit(root commitgraph.RootValue, onMain bool) (commitgraph.RootValue, error) {
	t, err := gn.table(root)
	if err != nil {
		return root, err
	}
	if t == nil {
		if t, err = tables.New(gn.ns, Schema(gn.extra), nil); err != nil {
			return root, err
		}
		gn.op.Create = true
		ed := t.Edit()
		for i := 0; i < gn.o.Rows; i++ {
			gn.nextPK++
			r := gn.row(gn.nextPK)
			if _, err := ed.Insert(gn.ctx, r); err != nil {
				return root, err
			}
			gn.record(r, false)
		}
		if t, err = ed.Table(gn.ctx); err != nil {
			return root, err
		}
	} else {
		if onMain && gn.o.AddColumnAt > 0 && gn.n >= gn.o.AddColumnAt && !gn.extra {
			gn.extra = true
			gn.op.AddColumn = true
			if t, err = gn.addColumn(t); err != nil {
				return root, err
			}
		}
		width := len(t.Schema().Columns)
		ed := t.Edit()
		for k := 0; k < 2+gn.rng.IntN(2); k++ {
			key, _, err := t.Rows().GetOrdinal(gn.ctx, uint64(gn.rng.IntN(int(max(t.Count(), 1)))))
			if err != nil {
				return root, err
			}
			old, ok, err := ed.Get(gn.ctx, []tables.Value{pkOf(t, key)})
			if err != nil {
				return root, err
			}
			if !ok {
				continue
			}
			nr := gn.row(old[0].AsInt())[:width]
			if len(nr) < width {
				nr = append(nr, prolly.Null())
			}
			if err := ed.Update(gn.ctx, old, nr); err != nil {
				return root, err
			}
			gn.record(nr, false)
		}
		switch gn.rng.IntN(6) {
		case 0:
			gn.nextPK++
			nr := gn.row(gn.nextPK)[:width]
			if len(nr) < width {
				nr = append(nr, prolly.Null())
			}
			if _, err := ed.Insert(gn.ctx, nr); err != nil {
				return root, err
			}
			gn.record(nr, false)
		case 1:
			if t.Count() > 1 {
				key, _, err := t.Rows().GetOrdinal(gn.ctx, 0)
				if err != nil {
					return root, err
				}
				if old, ok, err := ed.Get(gn.ctx, []tables.Value{pkOf(t, key)}); err != nil {
					return root, err
				} else if ok {
					if err := ed.Delete(gn.ctx, old); err != nil {
						return root, err
					}
					gn.record(old, true)
				}
			}
		}
		if t, err = ed.Table(gn.ctx); err != nil {
			return root, err
		}
	}
	addr, err := t.Write(gn.ctx)
	if err != nil {
		return root, err
	}
	edits := []commitgraph.RootEdit{{Name: commitgraph.TablePrefix + Table, Addr: addr}}
	if gn.o.EventsEvery > 0 && gn.n%gn.o.EventsEvery == 0 {
		ea, err := gn.g.Store().Put(gn.ctx, []byte(fmt.Sprintf("event log stand-in %d", gn.n)))
		if err != nil {
			return root, err
		}
		edits = append(edits, commitgraph.RootEdit{Name: "events/log", Addr: ea})
		gn.op.Events = true
	}
	return root.Edit(gn.ctx, edits...)
}

// pkOf decodes the primary key of a row map key: t's rows are keyed by
// pk alone, so the row's first value is the key.
func pkOf(t *tables.Table, key []byte) tables.Value {
	row, ok, err := t.GetByKey(context.Background(), key)
	if err != nil || !ok {
		return prolly.Int(-1)
	}
	return row[0]
}

// addColumn returns t rebuilt with the extra column (NULL everywhere).
func (gn *gen) addColumn(t *tables.Table) (*tables.Table, error) {
	nt, err := tables.New(gn.ns, Schema(true), nil)
	if err != nil {
		return nil, err
	}
	ed := nt.Edit()
	it := t.Scan(gn.ctx, nil, nil, false)
	for it.Next(gn.ctx) {
		if _, err := ed.Insert(gn.ctx, append(it.Row(), prolly.Null())); err != nil {
			return nil, err
		}
	}
	if err := it.Err(); err != nil {
		return nil, err
	}
	return ed.Table(gn.ctx)
}

// merged returns ours' root with the changes theirs made since base to t
// applied (theirs wins), and theirs' events entry.
func (gn *gen) merged(ours, theirs, base commitgraph.RootValue) (commitgraph.RootValue, error) {
	ot, err := gn.table(ours)
	if err != nil {
		return ours, err
	}
	tt, err := gn.table(theirs)
	if err != nil || tt == nil || ot == nil {
		return ours, err
	}
	bt, err := gn.table(base)
	if err != nil {
		return ours, err
	}
	bm := prolly.NewMap(gn.ns)
	if bt != nil {
		bm = bt.Rows()
	}
	width := len(ot.Schema().Columns)
	fit := func(r []tables.Value) []tables.Value {
		r = r[:min(len(r), width)]
		for len(r) < width {
			r = append(r, prolly.Null())
		}
		return r
	}
	ed := ot.Edit()
	err = prolly.DiffMaps(gn.ctx, bm, tt.Rows(), func(d prolly.Diff) error {
		var pk tables.Value
		var nr []tables.Value
		if d.Type == prolly.Removed {
			pk = pkOf(bt, d.Key)
		} else {
			r, _, err := tt.GetByKey(gn.ctx, d.Key)
			if err != nil {
				return err
			}
			nr, pk = fit(r), r[0]
		}
		old, ok, err := ed.Get(gn.ctx, []tables.Value{pk})
		if err != nil {
			return err
		}
		switch {
		case nr == nil && ok:
			gn.record(old, true)
			return ed.Delete(gn.ctx, old)
		case nr != nil && ok:
			gn.record(nr, false)
			return ed.Update(gn.ctx, old, nr)
		case nr != nil:
			gn.record(nr, false)
			_, err := ed.Insert(gn.ctx, nr)
			return err
		}
		return nil
	})
	if err != nil {
		return ours, err
	}
	mt, err := ed.Table(gn.ctx)
	if err != nil {
		return ours, err
	}
	addr, err := mt.Write(gn.ctx)
	if err != nil {
		return ours, err
	}
	edits := []commitgraph.RootEdit{{Name: commitgraph.TablePrefix + Table, Addr: addr}}
	if ea, ok, err := theirs.Get(gn.ctx, "events/log"); err != nil {
		return ours, err
	} else if ok {
		edits = append(edits, commitgraph.RootEdit{Name: "events/log", Addr: ea})
		gn.op.Events = true
	}
	return ours.Edit(gn.ctx, edits...)
}

// step commits one change to branch.
func (gn *gen) step(branch string) error {
	root, err := gn.rootOf(branch)
	if err != nil {
		return err
	}
	if root, err = gn.edit(root, branch == "main"); err != nil {
		return err
	}
	return gn.commit(branch, root, nil, "commit")
}

// merge commits the merge of theirs (one branch, or several for an
// octopus) into ours, applying each one's changes since its merge base with
// ours in turn.
func (gn *gen) merge(ours string, theirs ...string) error {
	root, err := gn.rootOf(ours)
	if err != nil {
		return err
	}
	for _, th := range theirs {
		base, err := gn.g.MergeBase(gn.ctx, gn.h.Branches[ours], gn.h.Branches[th])
		if err != nil {
			return err
		}
		tr, err := gn.rootOf(th)
		if err != nil {
			return err
		}
		br, err := gn.g.OpenRoot(gn.ctx, base.Root)
		if err != nil {
			return err
		}
		if root, err = gn.merged(root, tr, br); err != nil {
			return err
		}
	}
	return gn.commit(ours, root, theirs, "merge "+strings.Join(theirs, ", ")+" into "+ours)
}

// related reports whether the heads of a and b are the same commit or one
// is an ancestor of the other.
func (gn *gen) related(a, b string) (bool, error) {
	ha, hb := gn.h.Branches[a], gn.h.Branches[b]
	if ok, err := gn.g.IsAncestor(gn.ctx, hb, ha); err != nil || ok {
		return ok, err
	}
	return gn.g.IsAncestor(gn.ctx, ha, hb)
}

func (gn *gen) run() error {
	if gn.o.Random {
		return gn.runRandom()
	}
	side := 0
	for main := 0; gn.n < gn.o.Commits; main++ {
		if gn.o.BranchEvery > 0 && main > 0 && main%gn.o.BranchEvery == 0 && gn.n+gn.o.BranchLen+1 <= gn.o.Commits {
			side++
			name := fmt.Sprintf("side%d", side)
			if !gn.o.KeepBranches && side > 1 {
				gn.forget(fmt.Sprintf("side%d", side-1))
			}
			gn.branch(name, "main")
			for k := 0; k < gn.o.BranchLen; k++ {
				if err := gn.step(name); err != nil {
					return err
				}
			}
			// main moves on once before the merge, so the merge is no
			// fast-forward.
			if err := gn.step("main"); err != nil {
				return err
			}
			if gn.n < gn.o.Commits {
				if err := gn.merge("main", name); err != nil {
					return err
				}
			}
			continue
		}
		if err := gn.step("main"); err != nil {
			return err
		}
	}
	return nil
}

func (gn *gen) runRandom() error {
	branches := []string{"main"}
	mergeCut := 30 // r in [10, mergeCut): a merge
	if gn.o.Runs > 1 {
		mergeCut = 60 // steps write runs: merge more often
	}
	for gn.n < gn.o.Commits {
		switch r := gn.rng.IntN(100); {
		case r < 10 && len(branches) < 6:
			name := fmt.Sprintf("b%d", len(branches))
			if at := gn.h.Commits; len(at) > 0 {
				i := gn.rng.IntN(len(at))
				gn.h.Branches[name] = at[i].Addr
				gn.h.Ops = append(gn.h.Ops, Op{Kind: OpBranch, Branch: name, At: i})
			} else {
				gn.branch(name, "main")
			}
			branches = append(branches, name)
		case r < mergeCut && len(branches) > 1:
			a, b := branches[gn.rng.IntN(len(branches))], branches[gn.rng.IntN(len(branches))]
			if gn.o.Runs > 1 && gn.rng.IntN(2) == 0 {
				a = "main" // so that main's history holds many of the merges
			}
			if rel, err := gn.related(a, b); err != nil || rel {
				if err != nil {
					return err
				}
				continue
			}
			theirs := []string{b}
			if gn.o.Octopus && gn.rng.IntN(2) == 0 {
				c := branches[gn.rng.IntN(len(branches))]
				relA, err := gn.related(a, c)
				if err != nil {
					return err
				}
				relB, err := gn.related(b, c)
				if err != nil {
					return err
				}
				if !relA && !relB {
					theirs = append(theirs, c)
				}
			}
			if err := gn.merge(a, theirs...); err != nil {
				return err
			}
		default:
			b := branches[gn.rng.IntN(len(branches))]
			run := 1
			if gn.o.Runs > 1 {
				run = 1 + gn.rng.IntN(gn.o.Runs)
			}
			for k := 0; k < run && gn.n < gn.o.Commits; k++ {
				if err := gn.step(b); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
