package tables

import (
	"context"
	"fmt"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/prolly"
)

// Header is what a table chunk names: its schema chunk and its row map.
// Equal schemas have equal schema addresses and equal rows equal row map
// addresses (the zero address for no rows), so two table values compare
// with one chunk read each, without reading schemas or rows.
type Header struct {
	Schema, Rows chunks.Address
}

// ReadHeader reads the header of the table value stored at addr: one
// chunk read.
func ReadHeader(ctx context.Context, ns *prolly.NodeStore, addr chunks.Address) (Header, error) {
	b, err := ns.Store().Get(ctx, addr)
	if err != nil {
		return Header{}, fmt.Errorf("tables: load table %s: %w", addr, err)
	}
	schema, rows, _, _, err := decodeTable(b)
	if err != nil {
		return Header{}, fmt.Errorf("tables: table %s: %w", addr, err)
	}
	return Header{Schema: schema, Rows: rows}, nil
}
