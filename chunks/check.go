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
	var first error
	_, err := s.CheckEach(ctx, func(err error) bool {
		first = err
		return false
	})
	if err != nil {
		return err
	}
	return first
}

// CheckEach is Check going on past each problem: it calls problem with
// every damaged chunk (an error wrapping ErrCorrupt that names the file,
// and the offset or the address where it can), stopping early if problem
// returns false, and returns how many chunk records it read. The error it
// returns is ctx's, or one that stops the whole check; it holds the
// store's read lock throughout.
func (s *FileStore) CheckEach(ctx context.Context, problem func(error) bool) (int, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.check(); err != nil {
		return 0, err
	}
	verify := func(where string, addr Address, data []byte) error {
		if got := Of(data); got != addr {
			return fmt.Errorf("%s: %w: chunk %s holds bytes whose address is %s", where, ErrCorrupt, addr, got)
		}
		return nil
	}
	n := 0
	for _, j := range s.journals {
		for addr, loc := range j.index {
			if err := ctx.Err(); err != nil {
				return n, err
			}
			n++
			data, err := j.get(addr, loc)
			if err == nil {
				err = verify(fmt.Sprintf("journal %s at offset %d", j.path, loc.off), addr, data)
			}
			if err != nil && !problem(err) {
				return n, nil
			}
		}
	}
	for _, t := range s.tables {
		for i := 0; i < t.count; i++ {
			if err := ctx.Err(); err != nil {
				return n, err
			}
			n++
			addr, codec, stored, err := t.record(i)
			if err != nil {
				err = fmt.Errorf("table file %s: record %d: %w", t.path, i, err)
			} else if data, derr := decodeChunk(codec, stored, t.z); derr != nil {
				err = fmt.Errorf("table file %s: chunk %s: %w", t.path, addr, derr)
			} else {
				err = verify("table file "+t.path, addr, data)
			}
			if err != nil && !problem(err) {
				return n, nil
			}
		}
	}
	if root := s.rootAddr(); !root.IsEmpty() {
		if j, _, t, _ := s.locate(root); j == nil && t == nil {
			problem(fmt.Errorf("%w: the root %s names no chunk in the store", ErrCorrupt, root))
		}
	}
	return n, nil
}
