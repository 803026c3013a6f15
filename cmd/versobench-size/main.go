// Command versobench-size says where a database's bytes go: it opens the
// database in the folder given (read-only, so it runs beside a server),
// walks everything the refs reach by its kind (commits, closures, root
// values, tables' rows and indexes, the event log, working sets, refs),
// and prints the chunks and on-disk bytes of each kind, what nothing
// reaches (garbage), and the files' framing (record headers, table
// indexes, root records).
//
//	go run ./cmd/versobench-size DIR
//
// A chunk reached in two ways counts once, under the first kind found, in
// the order: refs, working sets, tags, commits, closures, root values,
// tables, events, other root entries.
package main

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tables"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: versobench-size DIR")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "versobench-size:", err)
		os.Exit(1)
	}
}

type sizer struct {
	ctx   context.Context
	db    *verso.DB
	ns    *prolly.NodeStore
	size  map[chunks.Address]int // on-disk record bytes
	kind  map[chunks.Address]string
	count map[string]int
	bytes map[string]int
	roots map[chunks.Address]bool // root values walked
}

func (s *sizer) claim(a chunks.Address, kind string) bool {
	if a.IsEmpty() {
		return false
	}
	if _, ok := s.kind[a]; ok {
		return false
	}
	n, ok := s.size[a]
	if !ok {
		return false
	}
	s.kind[a] = kind
	s.count[kind]++
	s.bytes[kind] += n
	return true
}

// walkMap claims every node of the map at root, leaves and internal nodes
// apart; it stops at nodes claimed already.
func (s *sizer) walkMap(root chunks.Address, kind string) error {
	if root.IsEmpty() {
		return nil
	}
	m, err := prolly.OpenMap(s.ctx, s.ns, root)
	if err != nil {
		return err
	}
	return m.WalkNodes(s.ctx, func(a chunks.Address, level int) (bool, error) {
		k := kind + ": internal nodes"
		if level == 0 {
			k = kind + ": leaves"
		}
		return s.claim(a, k), nil
	})
}

func run(dir string) error {
	ctx := context.Background()
	db, err := verso.Open(dir, verso.Options{ReadOnly: true})
	if err != nil {
		return err
	}
	defer db.Close()
	fs, ok := db.Store().(*chunks.FileStore)
	if !ok {
		return fmt.Errorf("%s: not a file store", dir)
	}
	s := &sizer{ctx: ctx, db: db, ns: db.Graph().NodeStore(), size: map[chunks.Address]int{},
		kind: map[chunks.Address]string{}, count: map[string]int{}, bytes: map[string]int{}, roots: map[chunks.Address]bool{}}
	total := 0
	fs.EachRecord(func(a chunks.Address, n int) { s.size[a] = n; total += n })

	root, err := fs.Root(ctx)
	if err != nil {
		return err
	}
	if err := s.walkMap(root, "refs map"); err != nil {
		return err
	}
	refs, err := prolly.OpenMap(ctx, s.ns, root)
	if err != nil {
		return err
	}
	var heads []chunks.Address
	var roots []chunks.Address
	it := refs.IterAll(ctx)
	for it.Next(ctx) {
		name := string(it.Key())
		var a chunks.Address
		copy(a[:], it.Value())
		switch {
		case strings.HasPrefix(name, "workingSets/"):
			s.claim(a, "working sets")
			b, err := fs.Get(ctx, a)
			if err != nil {
				return err
			}
			ws, err := commitgraph.DecodeWorkingSet(b)
			if err != nil {
				return err
			}
			roots = append(roots, ws.Working, ws.Staged)
			if ws.Merge != nil {
				heads = append(heads, ws.Merge.Commit)
				roots = append(roots, ws.Merge.PreMergeWorking)
			}
		case strings.HasPrefix(name, "refs/tags/"):
			s.claim(a, "tags")
			b, err := fs.Get(ctx, a)
			if err != nil {
				return err
			}
			tg, err := commitgraph.DecodeTag(a, b)
			if err != nil {
				return err
			}
			heads = append(heads, tg.Commit)
		default:
			heads = append(heads, a)
		}
	}
	if err := it.Err(); err != nil {
		return err
	}
	// Commits, newest first; their closures and roots.
	var closures []chunks.Address
	for len(heads) > 0 {
		a := heads[len(heads)-1]
		heads = heads[:len(heads)-1]
		if !s.claim(a, "commits") {
			continue
		}
		c, err := db.Graph().ReadCommit(ctx, a)
		if err != nil {
			return err
		}
		closures = append(closures, c.Closure)
		roots = append(roots, c.Root)
		heads = append(heads, c.Parents...)
	}
	commits := s.count["commits"]
	for _, a := range closures {
		if err := s.walkMap(a, "closures"); err != nil {
			return err
		}
	}
	for _, a := range roots {
		if err := s.root(a); err != nil {
			return err
		}
	}

	var kinds []string
	for k := range s.count {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	claimed, claimedBytes := 0, 0
	st := fs.Stats()
	files := st.JournalBytes + st.TableBytes
	fmt.Printf("%s: %d commits, %.1f MB of files (%d bytes a commit)\n\n", dir, commits, float64(files)/1e6, files/int64(max(commits, 1)))
	fmt.Println("| kind | chunks | bytes | bytes a commit | share |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: |")
	row := func(k string, n, b int) {
		fmt.Printf("| %s | %d | %d | %.0f | %.1f%% |\n", k, n, b, float64(b)/float64(max(commits, 1)), 100*float64(b)/float64(files))
	}
	for _, k := range kinds {
		row(k, s.count[k], s.bytes[k])
		claimed += s.count[k]
		claimedBytes += s.bytes[k]
	}
	row("garbage (nothing reaches it)", len(s.size)-claimed, total-claimedBytes)
	row("framing (journal root records, table indexes and footers)", 0, int(files)-total)
	return nil
}

// root claims a root value's map and what its entries name.
func (s *sizer) root(a chunks.Address) error {
	if a.IsEmpty() || s.roots[a] {
		return nil
	}
	s.roots[a] = true
	if err := s.walkMap(a, "root values"); err != nil {
		return err
	}
	rv, err := s.db.Graph().OpenRoot(s.ctx, a)
	if err != nil {
		return err
	}
	ents, err := rv.Entries(s.ctx, "")
	if err != nil {
		return err
	}
	for _, e := range ents {
		switch {
		case strings.HasPrefix(e.Name, commitgraph.TablePrefix):
			if !s.claim(e.Addr, "table headers") {
				continue
			}
			tb, err := tables.Load(s.ctx, s.ns, e.Addr, nil)
			if err != nil {
				return err
			}
			h, err := tables.ReadHeader(s.ctx, s.ns, e.Addr)
			if err != nil {
				return err
			}
			s.claim(h.Schema, "schemas")
			if err := s.walkMap(tb.Rows().Address(), "table rows"); err != nil {
				return err
			}
			for i := range tb.Schema().Indexes {
				if err := s.walkMap(tb.IndexMap(i).Address(), "secondary indexes"); err != nil {
					return err
				}
			}
		case strings.HasPrefix(e.Name, commitgraph.EventsPrefix):
			if err := s.walkMap(e.Addr, "event log"); err != nil {
				return err
			}
		default:
			s.claim(e.Addr, "other root entries ("+strings.SplitN(e.Name, "/", 2)[0]+")")
		}
	}
	return nil
}
