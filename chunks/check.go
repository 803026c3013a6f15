package chunks

import (
	"context"
	"fmt"
)

// Check reads every chunk the store holds, in its journals and its tables,
// and verifies that its bytes hash to its address. It returns the first
// problem found, wrapping ErrCorrupt. It holds the store's read lock
// throughout: writers wait until it is done.
func (s *FileStore) Check(ctx context.Context) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.check(); err != nil {
		return err
	}
	verify := func(where string, addr Address, data []byte) error {
		if got := Of(data); got != addr {
			return fmt.Errorf("%s: %w: chunk %s holds bytes whose address is %s", where, ErrCorrupt, addr, got)
		}
		return nil
	}
	for _, j := range s.journals {
		for addr, loc := range j.index {
			if err := ctx.Err(); err != nil {
				return err
			}
			data, err := j.get(addr, loc)
			if err != nil {
				return err
			}
			if err := verify(fmt.Sprintf("journal %s at offset %d", j.path, loc.off), addr, data); err != nil {
				return err
			}
		}
	}
	for _, t := range s.tables {
		for i := 0; i < t.count; i++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			addr, codec, stored, err := t.record(i)
			if err != nil {
				return fmt.Errorf("table file %s: %w", t.path, err)
			}
			data, err := decodeChunk(codec, stored)
			if err != nil {
				return fmt.Errorf("table file %s: chunk %s: %w", t.path, addr, err)
			}
			if err := verify("table file "+t.path, addr, data); err != nil {
				return err
			}
		}
	}
	if !s.root.IsEmpty() {
		if j, _, t, _ := s.locate(s.root); j == nil && t == nil {
			return fmt.Errorf("%w: the root %s names no chunk in the store", ErrCorrupt, s.root)
		}
	}
	return nil
}
