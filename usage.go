package verso

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tablemerge"
	"github.com/verso-db/verso/tables"
)

// Usage is where a database's bytes go (DB.Usage): the chunks and bytes
// of each kind of thing the refs reach, of what nothing reaches, and of
// the files' framing.
type Usage struct {
	Commits int         // commits the refs reach
	Kinds   []UsageKind // by name
	Garbage UsageKind   // chunks nothing reaches
	Framing int64       // file bytes outside chunk records (root records, table indexes and footers); 0 in memory
	Files   int64       // the store's file bytes (in memory: its chunks' bytes)
	kinds   map[string]*UsageKind
}

// UsageKind is one line of a Usage.
type UsageKind struct {
	Name   string
	Chunks int
	Bytes  int64 // the records' bytes on disk
}

// recordSizer is a store that can list its records' sizes.
type recordSizer interface {
	EachRecord(fn func(a chunks.Address, bytes int))
}

var (
	_ recordSizer = (*chunks.FileStore)(nil)
	_ recordSizer = (*chunks.MemoryStore)(nil)
)

// Usage walks everything the refs reach by its kind (the refs map,
// working sets, tags, commits, closures, root values, table headers,
// schemas, rows and secondary indexes, the event log, other root entries)
// and counts each chunk once, under the first kind it is found as, in
// that order. It reads every commit and every distinct root value, and
// the nodes of every map; it does not read rows, so the trees of large
// values (long text and blobs stored out of the row) count as garbage.
// For a store that cannot list its chunks it fails.
func (db *DB) Usage(ctx context.Context) (*Usage, error) {
	rs, ok := db.store.(recordSizer)
	if !ok {
		return nil, fmt.Errorf("verso: the store %T cannot list its chunks", db.store)
	}
	w := &usageWalk{ctx: ctx, db: db, ns: db.graph.NodeStore(), size: map[chunks.Address]int{},
		seen: map[chunks.Address]bool{}, roots: map[chunks.Address]bool{}, u: &Usage{kinds: map[string]*UsageKind{}}}
	var total int64
	rs.EachRecord(func(a chunks.Address, n int) { w.size[a] = n; total += int64(n) })
	w.u.Files = total
	if fs, ok := db.store.(*chunks.FileStore); ok {
		st := fs.Stats()
		w.u.Files = st.JournalBytes + st.TableBytes
	}
	if err := w.walk(); err != nil {
		return nil, err
	}
	u := w.u
	var claimed int64
	n := 0
	for _, k := range u.kinds {
		u.Kinds = append(u.Kinds, *k)
		claimed += k.Bytes
		n += k.Chunks
	}
	sort.Slice(u.Kinds, func(i, j int) bool { return u.Kinds[i].Name < u.Kinds[j].Name })
	u.Garbage = UsageKind{Name: "garbage", Chunks: len(w.size) - n, Bytes: total - claimed}
	u.Framing = u.Files - total
	return u, nil
}

type usageWalk struct {
	ctx   context.Context
	db    *DB
	ns    *prolly.NodeStore
	size  map[chunks.Address]int
	seen  map[chunks.Address]bool
	roots map[chunks.Address]bool
	u     *Usage
}

// claim counts a under kind unless it was counted; it reports whether it
// counted it now.
func (w *usageWalk) claim(a chunks.Address, kind string) bool {
	n, ok := w.size[a]
	if a.IsEmpty() || w.seen[a] || !ok {
		return false
	}
	w.seen[a] = true
	k := w.u.kinds[kind]
	if k == nil {
		k = &UsageKind{Name: kind}
		w.u.kinds[kind] = k
	}
	k.Chunks++
	k.Bytes += int64(n)
	return true
}

// walkMap counts the nodes of the map at root, leaves and internal nodes
// apart, stopping at nodes counted already.
func (w *usageWalk) walkMap(root chunks.Address, kind string) error {
	if root.IsEmpty() {
		return nil
	}
	m, err := prolly.OpenMap(w.ctx, w.ns, root)
	if err != nil {
		return err
	}
	return m.WalkNodes(w.ctx, func(a chunks.Address, level int) (bool, error) {
		if level == 0 {
			return w.claim(a, kind+": leaves"), nil
		}
		return w.claim(a, kind+": internal nodes"), nil
	})
}

func (w *usageWalk) walk() error {
	ctx := w.ctx
	root, err := w.db.store.Root(ctx)
	if err != nil {
		return err
	}
	if err := w.walkMap(root, "refs map"); err != nil {
		return err
	}
	refs, err := prolly.OpenMap(ctx, w.ns, root)
	if err != nil {
		return err
	}
	var heads, roots []chunks.Address
	it := refs.IterAll(ctx)
	for it.Next(ctx) {
		name := string(it.Key())
		var a chunks.Address
		copy(a[:], it.Value())
		switch {
		case strings.HasPrefix(name, "workingSets/"):
			w.claim(a, "working sets")
			b, err := w.db.store.Get(ctx, a)
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
		case strings.HasPrefix(name, commitgraph.RemotePrefix), strings.HasPrefix(name, commitgraph.UpstreamPrefix):
			// A remote's configuration, a branch's upstream: no history.
			w.claim(a, "remotes")
		case strings.HasPrefix(name, "refs/tags/"):
			w.claim(a, "tags")
			b, err := w.db.store.Get(ctx, a)
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
	if err := w.commits(heads); err != nil {
		return err
	}
	for _, a := range roots {
		if err := w.root(a); err != nil {
			return err
		}
	}
	return nil
}

// commits counts the commits heads reach, their closures and their root
// values.
func (w *usageWalk) commits(heads []chunks.Address) error {
	var closures, roots []chunks.Address
	for len(heads) > 0 {
		a := heads[len(heads)-1]
		heads = heads[:len(heads)-1]
		if !w.claim(a, "commits") {
			continue
		}
		w.u.Commits++
		c, err := w.db.graph.ReadCommit(w.ctx, a)
		if err != nil {
			return err
		}
		closures = append(closures, c.Closure)
		roots = append(roots, c.Root)
		heads = append(heads, c.Parents...)
	}
	for _, a := range closures {
		if err := w.walkMap(a, "closures"); err != nil {
			return err
		}
	}
	for _, a := range roots {
		if err := w.root(a); err != nil {
			return err
		}
	}
	return nil
}

// root counts a root value's map and what its entries name.
func (w *usageWalk) root(a chunks.Address) error {
	if a.IsEmpty() || w.roots[a] {
		return nil
	}
	w.roots[a] = true
	if err := w.walkMap(a, "root values"); err != nil {
		return err
	}
	rv, err := w.db.graph.OpenRoot(w.ctx, a)
	if err != nil {
		return err
	}
	ents, err := rv.Entries(w.ctx, "")
	if err != nil {
		return err
	}
	for _, e := range ents {
		switch {
		case strings.HasPrefix(e.Name, commitgraph.TablePrefix):
			if !w.claim(e.Addr, "table headers") {
				continue
			}
			h, err := tables.ReadHeader(w.ctx, w.ns, e.Addr)
			if err != nil {
				return err
			}
			w.claim(h.Schema, "schemas")
			tb, err := w.db.tableAt(w.ctx, e.Addr)
			if err != nil {
				return err
			}
			if err := w.walkMap(tb.Rows().Address(), "table rows"); err != nil {
				return err
			}
			for i := range tb.Schema().Indexes {
				if err := w.walkMap(tb.IndexMap(i).Address(), "secondary indexes"); err != nil {
					return err
				}
			}
		case strings.HasPrefix(e.Name, commitgraph.EventsPrefix):
			if err := w.walkMap(e.Addr, "event log"); err != nil {
				return err
			}
		case strings.HasPrefix(e.Name, commitgraph.ConflictsPrefix):
			if !w.claim(e.Addr, "conflicts") {
				continue
			}
			b, err := w.db.store.Get(w.ctx, e.Addr)
			if err != nil {
				return err
			}
			schema, theirs, m, err := tablemerge.DecodeConflictSetChunk(b)
			if err != nil {
				return err
			}
			w.claim(schema, "conflicts")
			heads := []chunks.Address{theirs}
			if err := w.commits(heads); err != nil {
				return err
			}
			if err := w.walkMap(m, "conflicts"); err != nil {
				return err
			}
		default:
			w.claim(e.Addr, "other root entries ("+strings.SplitN(e.Name, "/", 2)[0]+")")
		}
	}
	return nil
}
