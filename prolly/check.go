package prolly

import (
	"bytes"
	"context"
	"fmt"
)

// Check verifies the whole tree: every address resolves to a valid node;
// levels fall by one from parent to child; keys ascend within and across
// nodes; each internal entry holds its child's last key and exact subtree
// count; an internal root has at least two children; and every node ends
// exactly where the boundary rule says (so the tree has the one shape its
// contents dictate). It reads every node: use it in tests.
func (m Map) Check(ctx context.Context) error {
	if m.root == nil {
		return nil
	}
	if !m.root.leaf() && m.root.n < 2 {
		return fmt.Errorf("%w: internal root %s has one child", ErrCheck, m.root.addr)
	}
	var prev []byte
	first := true
	_, err := m.checkNode(ctx, m.root, true, &prev, &first)
	return err
}

func (m Map) checkNode(ctx context.Context, nd *node, last bool, prev *[]byte, first *bool) (uint64, error) {
	sp := splitter{level: nd.level}
	for i := 0; i < nd.n; i++ {
		split := sp.add(nd.key(i), entrySize(nd.key(i), nd.value(i)))
		if split && i < nd.n-1 {
			return 0, fmt.Errorf("%w: node %s (level %d) should end after entry %d of %d", ErrCheck, nd.addr, nd.level, i, nd.n)
		}
		if !split && i == nd.n-1 && !last {
			return 0, fmt.Errorf("%w: node %s (level %d) ends where the boundary rule does not end it", ErrCheck, nd.addr, nd.level)
		}
	}
	if nd.leaf() {
		for i := 0; i < nd.n; i++ {
			if !*first && bytes.Compare(*prev, nd.key(i)) >= 0 {
				return 0, fmt.Errorf("%w: key %x in node %s after %x", ErrCheck, nd.key(i), nd.addr, *prev)
			}
			*prev, *first = nd.key(i), false
		}
		return uint64(nd.n), nil
	}
	var total uint64
	for i := 0; i < nd.n; i++ {
		child, err := m.ns.read(ctx, nd.child(i))
		if err != nil {
			return 0, fmt.Errorf("%w: child %d of %s: %w", ErrCheck, i, nd.addr, err)
		}
		if child.level+1 != nd.level {
			return 0, fmt.Errorf("%w: child %s at level %d under a node at level %d", ErrCheck, child.addr, child.level, nd.level)
		}
		if !bytes.Equal(child.lastKey(), nd.key(i)) {
			return 0, fmt.Errorf("%w: entry %d of %s has key %x, its child ends with %x", ErrCheck, i, nd.addr, nd.key(i), child.lastKey())
		}
		c, err := m.checkNode(ctx, child, last && i == nd.n-1, prev, first)
		if err != nil {
			return 0, err
		}
		if c != nd.childCount(i) {
			return 0, fmt.Errorf("%w: entry %d of %s counts %d entries, its subtree has %d", ErrCheck, i, nd.addr, nd.childCount(i), c)
		}
		total += c
	}
	return total, nil
}
