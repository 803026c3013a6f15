package prolly

import (
	"context"
	"fmt"
)

// Large values (long text, blobs, JSON documents) are kept out of a row's
// value tuple once they pass LargeInlineLimit bytes: PutLarge stores them as
// their own prolly map, from the ordered key of each piece's number
// (EncodeKey(Uint(i))) to up to largePieceSize bytes, and the row holds a
// Ref value: the kind, the map's root address and the total length. Equal
// large values share every chunk.
const (
	// LargeInlineLimit is the longest String, Bytes or JSON value PutLarge
	// keeps inline.
	LargeInlineLimit = 2048
	largePieceSize   = 4096
)

// PutLarge returns a value of kind k (KindString, KindBytes or KindJSON)
// holding data: the value itself when it is at most LargeInlineLimit bytes,
// otherwise a Ref to a chunk tree written to ns.
func PutLarge(ctx context.Context, ns *NodeStore, k Kind, data []byte) (Value, error) {
	var v Value
	switch k {
	case KindString:
		v = String(string(data))
	case KindBytes:
		v = Bytes(data)
	case KindJSON:
		v = JSON(data)
	default:
		return Value{}, fmt.Errorf("prolly: PutLarge of kind %s; only string, bytes and json", k)
	}
	if len(data) <= LargeInlineLimit {
		return v, nil
	}
	b := NewBuilder(ns)
	for i := 0; i*largePieceSize < len(data); i++ {
		end := min((i+1)*largePieceSize, len(data))
		if err := b.Add(ctx, EncodeKey(nil, Uint(uint64(i))), data[i*largePieceSize:end]); err != nil {
			return Value{}, err
		}
	}
	m, err := b.Map(ctx)
	if err != nil {
		return Value{}, err
	}
	return Ref(k, m.Address(), uint64(len(data))), nil
}

// ReadLarge returns the bytes of a String, Bytes or JSON value, reading them
// from ns if v is a Ref.
func ReadLarge(ctx context.Context, ns *NodeStore, v Value) ([]byte, error) {
	if v.Kind() != KindRef {
		return v.AsBytes(), nil
	}
	_, addr, n := v.AsRef()
	m, err := OpenMap(ctx, ns, addr)
	if err != nil {
		return nil, err
	}
	if n > m.Count()*largePieceSize {
		return nil, badTuple("large value of %d bytes in %d pieces", n, m.Count())
	}
	out := make([]byte, 0, n)
	it := m.IterAll(ctx)
	for it.Next(ctx) {
		out = append(out, it.Value()...)
	}
	if err := it.Err(); err != nil {
		return nil, err
	}
	if uint64(len(out)) != n {
		return nil, badTuple("large value of %d bytes, its ref says %d", len(out), n)
	}
	return out, nil
}
