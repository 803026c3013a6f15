package verso

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/eventindex"
	"github.com/verso-db/verso/tablemerge"
	"github.com/verso-db/verso/tables"
)

// Checking a whole database (verso fsck): DB.Check runs the verifiers of
// every layer over everything the refs reach, and collects the problems
// instead of stopping at the first.
//
//  1. The chunk store: every chunk present in its files and hashing to its
//     address (chunks.FileStore.CheckEach). Quick stops here.
//  2. The commit graph (commitgraph.DB.Check): refs of their kinds, every
//     reachable commit's height and its closure equal to the one its
//     parents make; it stops at its first problem, reported once.
//  3. Every branch, tag and working set, and every commit reachable from
//     them: the commit decodes, its root value (and a working set's
//     working and staged roots, and the pre-merge root of a merge in
//     progress) is checked once per distinct address: each table
//     (tables.Table.Check: the prolly invariants of its row and index
//     maps, every row fitting the schema and under its key, every row
//     indexed and every index entry a row's), the event log
//     (eventindex.Log.Check, deep), each schema object chunk (views,
//     triggers, procedures, foreign keys, table options: magic, version
//     and tuple), each conflict set (tablemerge.ConflictSet.Check); each
//     head commit's closure (closure.Closure.Check).
//
// Tables, logs and objects are checked once per distinct address, so a
// long history whose commits share most of their tables costs about as
// much as the distinct values it holds.

// CheckOptions are the options of DB.Check.
type CheckOptions struct {
	// Quick checks only the chunk store: every chunk present and matching
	// its address.
	Quick bool
	// Progress, if set, is called as the check goes: done of total steps
	// (the store, then each distinct root value).
	Progress func(done, total int)
	// MaxProblems caps the problems kept (default 100); the rest are
	// counted in CheckReport.More.
	MaxProblems int
}

// Problem is one thing DB.Check found wrong: where (a file, a commit and
// the ref that reaches it, a working set, a table) and what.
type Problem struct {
	Where string
	Err   error
}

func (p Problem) String() string { return p.Where + ": " + p.Err.Error() }

// CheckReport is what DB.Check found.
type CheckReport struct {
	Chunks   int // chunk records read from the store (0 for a store that cannot be checked)
	Commits  int // distinct commits
	Roots    int // distinct root values
	Tables   int // distinct table values
	Problems []Problem
	More     int // problems beyond CheckOptions.MaxProblems, not kept
}

// OK reports whether the check found no problem.
func (r *CheckReport) OK() bool { return len(r.Problems) == 0 && r.More == 0 }

// Count returns how many problems the check found.
func (r *CheckReport) Count() int { return len(r.Problems) + r.More }

// eachChecker is a store that can verify its chunks (chunks.FileStore).
type eachChecker interface {
	CheckEach(ctx context.Context, problem func(error) bool) (int, error)
}

var _ eachChecker = (*chunks.FileStore)(nil)

// Check verifies the database (see the top of fsck.go). Damage is reported
// in the CheckReport, not as an error: the error is ctx's, or one that
// stops the check from reading the database at all. On a database opened
// read-only it checks the snapshot the open took, beside a running writer;
// on one open for writing, the store's part holds the store's read lock, so
// that commits wait for it.
func (db *DB) Check(ctx context.Context, opts CheckOptions) (*CheckReport, error) {
	if opts.MaxProblems <= 0 {
		opts.MaxProblems = 100
	}
	c := &checker{
		db:        db,
		opts:      opts,
		rep:       &CheckReport{},
		commits:   map[Hash]string{},
		roots:     map[Hash]bool{},
		tables:    map[Hash]bool{},
		logs:      map[string]bool{},
		objects:   map[Hash]bool{},
		conflicts: map[Hash]bool{},
	}
	progress := func(done, total int) {
		if opts.Progress != nil {
			opts.Progress(done, total)
		}
	}
	if s, ok := db.store.(eachChecker); ok {
		n, err := s.CheckEach(ctx, func(err error) bool {
			c.problem("chunk store", err)
			return true
		})
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			c.problem("chunk store", err)
		}
		c.rep.Chunks = n
	}
	if opts.Quick {
		progress(1, 1)
		return c.rep, nil
	}
	if err := db.graph.Check(ctx); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		c.problem("commit graph", err)
	}
	roots, err := c.collect(ctx)
	if err != nil {
		return nil, err
	}
	total := 1 + len(roots)
	progress(1, total)
	for i, r := range roots {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c.checkRoot(ctx, r.where, r.addr)
		progress(2+i, total)
	}
	c.rep.Commits = len(c.commits)
	c.rep.Roots = len(c.roots)
	c.rep.Tables = len(c.tables)
	return c.rep, nil
}

type checker struct {
	db   *DB
	opts CheckOptions
	rep  *CheckReport

	commits   map[Hash]string // commit -> the ref that first reached it
	roots     map[Hash]bool
	tables    map[Hash]bool
	logs      map[string]bool // the addresses of a log's maps, joined
	objects   map[Hash]bool
	conflicts map[Hash]bool
}

// rootAt is a root value to check and where it was found.
type rootAt struct {
	where string
	addr  Hash
}

func (c *checker) problem(where string, err error) {
	if len(c.rep.Problems) >= c.opts.MaxProblems {
		c.rep.More++
		return
	}
	c.rep.Problems = append(c.rep.Problems, Problem{Where: where, Err: err})
}

// collect walks the refs and every commit they reach, checking that each
// decodes and each head's closure, and returns the root values to check,
// each once, in the order found.
func (c *checker) collect(ctx context.Context) ([]rootAt, error) {
	g := c.db.graph
	var out []rootAt
	seenRoot := map[Hash]bool{}
	addRoot := func(where string, a Hash) {
		if !a.IsEmpty() && !seenRoot[a] {
			seenRoot[a] = true
			out = append(out, rootAt{where, a})
		}
	}
	type head struct {
		ref  string
		addr Hash
	}
	var heads []head
	branches, err := g.Branches(ctx)
	if err != nil {
		c.problem("refs", err)
	}
	for _, b := range branches {
		heads = append(heads, head{"branch " + b.Name, b.Head})
	}
	tags, err := g.Tags(ctx)
	if err != nil {
		c.problem("tags", err)
	}
	for _, t := range tags {
		heads = append(heads, head{"tag " + t.Name, t.Commit})
	}
	stashes, err := g.Refs(ctx, commitgraph.StashPrefix)
	if err != nil {
		c.problem("stashes", err)
	}
	for _, r := range stashes {
		heads = append(heads, head{"stash " + strings.TrimPrefix(r.Name, commitgraph.StashPrefix), r.Addr})
	}
	for _, h := range heads {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if _, ok := c.commits[h.addr]; ok {
			continue
		}
		hc, err := g.ReadCommit(ctx, h.addr)
		if err != nil {
			c.problem(fmt.Sprintf("%s: head commit %s", h.ref, h.addr), err)
			continue
		}
		if cl, err := g.Closure(ctx, hc); err != nil {
			c.problem(fmt.Sprintf("%s: closure of commit %s", h.ref, h.addr), err)
		} else if err := cl.Check(ctx); err != nil {
			c.problem(fmt.Sprintf("%s: closure of commit %s", h.ref, h.addr), err)
		}
		queue := []Hash{h.addr}
		for len(queue) > 0 {
			a := queue[len(queue)-1]
			queue = queue[:len(queue)-1]
			if _, ok := c.commits[a]; ok {
				continue
			}
			c.commits[a] = h.ref
			cm, err := g.ReadCommit(ctx, a)
			if err != nil {
				c.problem(fmt.Sprintf("commit %s (%s)", a, h.ref), err)
				continue
			}
			addRoot(fmt.Sprintf("commit %s (%s)", a, h.ref), cm.Root)
			queue = append(queue, cm.Parents...)
		}
	}
	for _, b := range branches {
		ws, err := g.WorkingSet(ctx, b.Name)
		if err != nil {
			c.problem("working set "+b.Name, err)
			continue
		}
		addRoot("working set "+b.Name+" (working root)", ws.Working)
		addRoot("working set "+b.Name+" (staged root)", ws.Staged)
		if ws.Merge != nil {
			addRoot("working set "+b.Name+" (root before the merge)", ws.Merge.PreMergeWorking)
			if _, err := g.ReadCommit(ctx, ws.Merge.Commit); err != nil {
				c.problem("working set "+b.Name+": commit being merged", err)
			}
		}
	}
	return out, nil
}

// checkRoot checks the root value at addr and every value it names that
// no earlier root named.
func (c *checker) checkRoot(ctx context.Context, where string, addr Hash) {
	if c.roots[addr] {
		return
	}
	c.roots[addr] = true
	where = fmt.Sprintf("%s, root %s", where, addr)
	root, err := c.db.graph.OpenRoot(ctx, addr)
	if err != nil {
		c.problem(where, err)
		return
	}
	ents, err := root.Entries(ctx, "")
	if err != nil {
		c.problem(where, err)
		return
	}
	var logKey []string
	for _, e := range ents {
		switch {
		case strings.HasPrefix(e.Name, commitgraph.TablePrefix):
			if c.tables[e.Addr] {
				continue
			}
			c.tables[e.Addr] = true
			name := strings.TrimPrefix(e.Name, commitgraph.TablePrefix)
			c.guard(where+", table "+name, func() error {
				tb, err := tables.Load(ctx, c.db.graph.NodeStore(), e.Addr, c.db.Collations())
				if err != nil {
					return err
				}
				err = tb.Check(ctx)
				if errors.Is(err, tables.ErrDuplicateUnique) {
					// A merge wrote both rows and recorded them as
					// violations (tablemerge.Options.RecordViolations).
					if _, ok, verr := root.Get(ctx, commitgraph.ViolationsPrefix+name); verr == nil && ok {
						return nil
					}
				}
				return err
			})
		case strings.HasPrefix(e.Name, commitgraph.ConflictsPrefix):
			if c.conflicts[e.Addr] {
				continue
			}
			c.conflicts[e.Addr] = true
			c.guard(where+", conflicts of table "+strings.TrimPrefix(e.Name, commitgraph.ConflictsPrefix), func() error {
				cs, err := tablemerge.LoadConflictSet(ctx, c.db.graph.NodeStore(), e.Addr)
				if err != nil {
					return err
				}
				return cs.Check(ctx)
			})
		case strings.HasPrefix(e.Name, commitgraph.ViolationsPrefix):
			c.guard(where+", violations of table "+strings.TrimPrefix(e.Name, commitgraph.ViolationsPrefix), func() error {
				vs, err := tablemerge.LoadViolationSet(ctx, c.db.graph.NodeStore(), e.Addr)
				if err != nil {
					return err
				}
				return vs.Check(ctx)
			})
		case strings.HasPrefix(e.Name, commitgraph.SchemaConflictsPrefix):
			c.guard(where+", schema conflict of table "+strings.TrimPrefix(e.Name, commitgraph.SchemaConflictsPrefix), func() error {
				b, err := c.db.store.Get(ctx, e.Addr)
				if err != nil {
					return err
				}
				_, err = tablemerge.DecodeSchemaConflict(b)
				return err
			})
		case strings.HasPrefix(e.Name, commitgraph.EventsPrefix):
			logKey = append(logKey, e.Name+"="+e.Addr.String())
		default: // views/, triggers/, procedures/, foreignkeys/, tableopts/
			if c.objects[e.Addr] {
				continue
			}
			c.objects[e.Addr] = true
			c.guard(where+", "+e.Name, func() error {
				b, err := c.db.store.Get(ctx, e.Addr)
				if err != nil {
					return err
				}
				_, err = decodeAnyObject(e.Name, b)
				return err
			})
		}
	}
	if len(logKey) == 0 {
		return
	}
	sort.Strings(logKey)
	if k := strings.Join(logKey, " "); !c.logs[k] {
		c.logs[k] = true
		c.guard(where+", event log", func() error {
			l, err := eventindex.LoadLog(ctx, c.db.graph.NodeStore(), root)
			if err != nil {
				return err
			}
			return l.Check(ctx, true)
		})
	}
}

// guard runs one structure's check and records its problem. A panic of a
// verifier on bad bytes is a bug of its decoder, but for fsck it is one
// more problem of this structure: the check goes on to the next.
func (c *checker) guard(where string, check func() error) {
	err := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("%w: the check panicked: %v", errCheckPanic, r)
			}
		}()
		return check()
	}()
	if err != nil {
		c.problem(where, err)
	}
}

var errCheckPanic = errors.New("verso: check")
