package systables

import (
	"context"
	"io"
	"slices"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/closure"
	"github.com/verso-db/verso/commitgraph"
)

// commitSource yields commits one at a time; next returns io.EOF at the
// end.
type commitSource interface {
	next(ctx context.Context) (*commitgraph.Commit, error)
}

// logSource yields a head and its ancestors in Dolt's log order.
type logSource struct{ it *commitgraph.LogIter }

func (s logSource) next(ctx context.Context) (*commitgraph.Commit, error) {
	if s.it.Next(ctx) {
		return s.it.Commit(), nil
	}
	if err := s.it.Err(); err != nil {
		return nil, err
	}
	return nil, io.EOF
}

// entryIter is one input of a mergedSource: a descending run of closure
// entries.
type entryIter interface {
	Next(ctx context.Context) bool
	Entry() closure.Entry
	Err() error
}

// sliceIter is an entryIter over a slice sorted in descending order.
type sliceIter struct {
	es  []closure.Entry
	cur closure.Entry
}

func (s *sliceIter) Next(context.Context) bool {
	if len(s.es) == 0 {
		return false
	}
	s.cur, s.es = s.es[0], s.es[1:]
	return true
}
func (s *sliceIter) Entry() closure.Entry { return s.cur }
func (s *sliceIter) Err() error           { return nil }

// mergedSource yields every commit of several heads' histories once, by
// descending (height, address): a merge of the heads' closures (each
// descending) and the heads themselves, which drops repeated entries.
// Commits shared by the histories are read once.
//
// A head's closure is opened only when the merge reaches the head: every
// entry of it is lower, so nothing is missed, and a page of the newest
// commits of a database with many branches merged long ago costs the
// closures of the heads it reaches, not of all of them.
type mergedSource struct {
	graph *commitgraph.DB
	its   []entryIter
	cur   []closure.Entry
	live  []bool
	// heads are the heads whose closures are not open yet.
	heads map[chunks.Address]*commitgraph.Commit
}

func newMergedSource(ctx context.Context, graph *commitgraph.DB, heads []chunks.Address) (*mergedSource, error) {
	m := &mergedSource{graph: graph, heads: make(map[chunks.Address]*commitgraph.Commit, len(heads))}
	var top []closure.Entry
	for _, h := range heads {
		c, err := graph.ReadCommit(ctx, h)
		if err != nil {
			return nil, err
		}
		if _, dup := m.heads[h]; !dup {
			top = append(top, c.Entry())
			m.heads[h] = c
		}
	}
	slices.SortFunc(top, func(a, b closure.Entry) int { return b.Compare(a) })
	if err := m.add(ctx, &sliceIter{es: top}); err != nil {
		return nil, err
	}
	return m, nil
}

// add makes it one of the merge's inputs.
func (m *mergedSource) add(ctx context.Context, it entryIter) error {
	m.its = append(m.its, it)
	m.cur = append(m.cur, closure.Entry{})
	m.live = append(m.live, false)
	return m.advance(ctx, len(m.its)-1)
}

// advance moves input i to its next entry.
func (m *mergedSource) advance(ctx context.Context, i int) error {
	m.live[i] = m.its[i].Next(ctx)
	if m.live[i] {
		m.cur[i] = m.its[i].Entry()
		return nil
	}
	return m.its[i].Err()
}

func (m *mergedSource) next(ctx context.Context) (*commitgraph.Commit, error) {
	best := -1
	for i := range m.its {
		if m.live[i] && (best < 0 || m.cur[i].Compare(m.cur[best]) > 0) {
			best = i
		}
	}
	if best < 0 {
		return nil, io.EOF
	}
	e := m.cur[best]
	for i := range m.its {
		if m.live[i] && m.cur[i] == e {
			if err := m.advance(ctx, i); err != nil {
				return nil, err
			}
		}
	}
	if c, ok := m.heads[e.Addr]; ok {
		delete(m.heads, e.Addr)
		cl, err := m.graph.Closure(ctx, c)
		if err != nil {
			return nil, err
		}
		if err := m.add(ctx, cl.Descending(ctx, closure.Entry{})); err != nil {
			return nil, err
		}
		return c, nil
	}
	return m.graph.ReadCommit(ctx, e.Addr)
}
