package prolly

import (
	"context"

	"github.com/verso-db/verso/chunks"
)

// WalkNodes calls fn with the address and level (0 for leaves) of every
// node of m, a parent before its children, in key order. If fn returns
// false for an internal node, its children are skipped (for a caller that
// already holds that subtree, as when copying or marking reachable chunks).
// Large values referenced from leaf values are not followed.
func (m Map) WalkNodes(ctx context.Context, fn func(addr chunks.Address, level int) (descend bool, err error)) error {
	if m.root == nil {
		return nil
	}
	return m.walk(ctx, m.root, fn)
}

func (m Map) walk(ctx context.Context, nd *node, fn func(chunks.Address, int) (bool, error)) error {
	descend, err := fn(nd.addr, int(nd.level))
	if err != nil || !descend || nd.leaf() {
		return err
	}
	for i := 0; i < nd.n; i++ {
		child, err := m.ns.readChild(ctx, nd, i)
		if err != nil {
			return err
		}
		if err := m.walk(ctx, child, fn); err != nil {
			return err
		}
	}
	return nil
}
