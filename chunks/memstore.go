package chunks

import (
	"context"
	"fmt"
	"sync"
)

// MemoryStore is a Store held in memory, for tests and scratch work. Nothing
// it holds survives the process. Uncommitted puts are readable at once, as
// in the file store.
type MemoryStore struct {
	mu     sync.RWMutex
	chunks map[Address][]byte
	root   Address
	roots  []Address // every root committed, oldest first (history.go)
	closed bool
	// barrier records every Put while a collection runs (collect.go).
	barrier *barrier
}

var _ Store = (*MemoryStore)(nil)

// NewMemoryStore returns an empty memory store.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{chunks: make(map[Address][]byte)}
}

func (s *MemoryStore) Get(ctx context.Context, addr Address) ([]byte, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, ErrClosed
	}
	data, ok := s.chunks[addr]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, addr)
	}
	return append([]byte(nil), data...), nil
}

func (s *MemoryStore) GetMany(ctx context.Context, addrs []Address, found func(Address, []byte)) error {
	return getEach(ctx, s, addrs, found)
}

func (s *MemoryStore) Has(ctx context.Context, addr Address) (bool, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return false, ErrClosed
	}
	_, ok := s.chunks[addr]
	return ok, nil
}

func (s *MemoryStore) HasMany(ctx context.Context, addrs []Address) (AddressSet, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, ErrClosed
	}
	absent := AddressSet{}
	for _, a := range addrs {
		if _, ok := s.chunks[a]; !ok {
			absent.Add(a)
		}
	}
	return absent, nil
}

func (s *MemoryStore) Root(ctx context.Context) (Address, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return Address{}, ErrClosed
	}
	return s.root, nil
}

func (s *MemoryStore) Put(ctx context.Context, data []byte) (Address, error) {
	addr := Of(data)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Address{}, ErrClosed
	}
	if _, ok := s.chunks[addr]; !ok {
		s.chunks[addr] = data
	}
	if s.barrier != nil {
		s.barrier.add(addr)
	}
	return addr, nil
}

func (s *MemoryStore) Commit(ctx context.Context, newRoot, expected Address) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if s.root != expected {
		return fmt.Errorf("%w: expected %s, found %s", ErrRootMoved, expected, s.root)
	}
	if !newRoot.IsEmpty() {
		if _, ok := s.chunks[newRoot]; !ok {
			return fmt.Errorf("%w: %s", errMissingRoot, newRoot)
		}
	}
	if s.barrier != nil {
		s.barrier.add(newRoot)
	}
	s.root = newRoot
	s.roots = append(s.roots, newRoot)
	return nil
}

// Len returns the number of chunks held.
func (s *MemoryStore) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.chunks)
}

func (s *MemoryStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	s.closed = true
	return nil
}

// EachRecord calls fn with the address and size of every chunk held, as
// FileStore.EachRecord does with its records' sizes.
func (s *MemoryStore) EachRecord(fn func(a Address, bytes int)) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for a, data := range s.chunks {
		fn(a, len(data))
	}
}
