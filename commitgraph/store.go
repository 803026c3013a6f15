package commitgraph

import (
	"context"
	"sync"

	"github.com/verso-db/verso/chunks"
)

// serialStore passes every call to a chunks.Store, holding a mutex around
// Put and Commit: the chunks.Writer contract asks callers to serialize
// writes, while a DB is used by many goroutines at once. Reads are not
// serialized.
//
// It also avoids a data race in chunks.FileStore.Commit (found on
// 2026-11-30: chunks/filestore.go, Commit reads a.committed after releasing
// its writer mutex while another Commit writes it in commitLocked), which
// the race detector reports when two goroutines commit at once.
type serialStore struct {
	chunks.Store
	mu sync.Mutex
}

var _ chunks.Store = (*serialStore)(nil)

func (s *serialStore) Put(ctx context.Context, data []byte) (chunks.Address, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Store.Put(ctx, data)
}

func (s *serialStore) Commit(ctx context.Context, newRoot, expected chunks.Address) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Store.Commit(ctx, newRoot, expected)
}
