package chunks

import (
	"context"
	"errors"
)

// Overlay is a Store for scratch work over another store's chunks, such as
// a merge computed to be looked at and thrown away: reads find the chunks
// put into the overlay, then the base's; puts stay in the overlay's memory
// and never reach the base, which is only read (a store opened read-only
// will do). Commit is refused: an overlay has no root of its own. Its
// memory grows with every chunk put and is freed with the overlay.
type Overlay struct {
	base Reader
	mem  *MemoryStore
}

var _ Store = (*Overlay)(nil)

// errOverlayCommit refuses Overlay.Commit.
var errOverlayCommit = errors.New("chunks: an overlay is scratch space; it cannot commit a root")

// NewOverlay returns an empty overlay over base.
func NewOverlay(base Reader) *Overlay {
	return &Overlay{base: base, mem: NewMemoryStore()}
}

func (o *Overlay) Get(ctx context.Context, addr Address) ([]byte, error) {
	data, err := o.mem.Get(ctx, addr)
	if IsNotFound(err) {
		return o.base.Get(ctx, addr)
	}
	return data, err
}

func (o *Overlay) GetMany(ctx context.Context, addrs []Address, found func(Address, []byte)) error {
	var rest []Address
	for _, a := range addrs {
		data, err := o.mem.Get(ctx, a)
		switch {
		case err == nil:
			found(a, data)
		case IsNotFound(err):
			rest = append(rest, a)
		default:
			return err
		}
	}
	if len(rest) == 0 {
		return nil
	}
	return o.base.GetMany(ctx, rest, found)
}

func (o *Overlay) Has(ctx context.Context, addr Address) (bool, error) {
	if ok, err := o.mem.Has(ctx, addr); err != nil || ok {
		return ok, err
	}
	return o.base.Has(ctx, addr)
}

func (o *Overlay) HasMany(ctx context.Context, addrs []Address) (AddressSet, error) {
	absent, err := o.mem.HasMany(ctx, addrs)
	if err != nil || len(absent) == 0 {
		return absent, err
	}
	rest := make([]Address, 0, len(absent))
	for a := range absent {
		rest = append(rest, a)
	}
	return o.base.HasMany(ctx, rest)
}

// Root returns the base's root.
func (o *Overlay) Root(ctx context.Context) (Address, error) { return o.base.Root(ctx) }

// Put keeps data in the overlay.
func (o *Overlay) Put(ctx context.Context, data []byte) (Address, error) { return o.mem.Put(ctx, data) }

// Commit refuses: an overlay has no root of its own.
func (o *Overlay) Commit(context.Context, Address, Address) error { return errOverlayCommit }

// Len returns the number of chunks put into the overlay.
func (o *Overlay) Len() int { return o.mem.Len() }

// Close drops the overlay's chunks; the base stays open.
func (o *Overlay) Close() error { return o.mem.Close() }
