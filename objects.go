package verso

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/prolly"
)

// Schema objects other than tables (views, triggers, scheduled events,
// stored procedures, foreign keys, a table's options) are one chunk each,
// named in the root value under their kind's prefix
// (commitgraph/rootnames.go): "views/<name>", "triggers/<name>",
// "sqlevents/<name>", "procedures/<name>", "foreignkeys/<name>",
// "tableopts/<table>". Names compare
// case-insensitively. The SQL layer decides each kind's fields; this file
// owns the chunk's format.
//
// Object chunk format, version 1:
//
//	+-----------+---------+---------------------------------------------+
//	| "VRSOOBJ" | 0x01    | prolly value tuple (prolly.EncodeTuple):     |
//	| 7 bytes   | version | the kind as a String, then the kind's fields |
//	+-----------+---------+---------------------------------------------+
//
// The tuple's encoding is prolly's (each value tagged with its kind, in
// its canonical form), so equal objects are equal chunks.
const (
	objectMagic   = "VRSOOBJ"
	objectVersion = 1
)

// ErrBadObject marks a stored object chunk that cannot be decoded. It
// wraps chunks.ErrCorrupt.
var ErrBadObject = fmt.Errorf("verso: malformed object chunk: %w", chunks.ErrCorrupt)

// Object is a decoded schema object chunk.
type Object struct {
	Name   string // as the root value names it, without the prefix
	Kind   string
	Fields []Value
}

// EncodeObject returns the chunk of an object of kind with fields.
func EncodeObject(kind string, fields ...Value) []byte {
	b := append([]byte(objectMagic), objectVersion)
	return prolly.EncodeTuple(b, append([]prolly.Value{prolly.String(kind)}, fields...)...)
}

// DecodeObject decodes the chunk b of the object name, which must be of
// kind with fields of kinds; anything else is ErrBadObject.
func DecodeObject(name, kind string, kinds []Kind, b []byte) (Object, error) {
	bad := func(why string) (Object, error) {
		return Object{}, fmt.Errorf("%w: %s %q: %s", ErrBadObject, kind, name, why)
	}
	o, err := decodeAnyObject(name, b)
	if err != nil {
		return Object{}, err
	}
	if o.Kind != kind || len(o.Fields) != len(kinds) {
		return bad("wrong kind or number of fields")
	}
	for i, k := range kinds {
		if o.Fields[i].Kind() != k {
			return bad(fmt.Sprintf("field %d has the wrong kind", i+1))
		}
	}
	return o, nil
}

// decodeAnyObject decodes the chunk b of the object name whatever its
// kind: the magic, the version, and a tuple that begins with the kind as
// a String. Anything else is ErrBadObject.
func decodeAnyObject(name string, b []byte) (Object, error) {
	bad := func(why string) (Object, error) {
		return Object{}, fmt.Errorf("%w: %q: %s", ErrBadObject, name, why)
	}
	if len(b) < len(objectMagic)+1 || !bytes.Equal(b[:len(objectMagic)], []byte(objectMagic)) {
		return bad("not an object chunk")
	}
	if b[len(objectMagic)] != objectVersion {
		return bad(fmt.Sprintf("unknown format version %d", b[len(objectMagic)]))
	}
	vals, err := prolly.DecodeTuple(b[len(objectMagic)+1:])
	if err != nil {
		return bad(err.Error())
	}
	if len(vals) == 0 || vals[0].Kind() != prolly.KindString {
		return bad("no kind")
	}
	return Object{Name: name, Kind: vals[0].AsString(), Fields: vals[1:]}, nil
}

// findObject returns the entry of root under prefix whose name is name,
// matched without case.
func findObject(ctx context.Context, root commitgraph.RootValue, prefix, name string) (commitgraph.RootEntry, bool, error) {
	ents, err := root.Entries(ctx, prefix)
	if err != nil {
		return commitgraph.RootEntry{}, false, err
	}
	for _, e := range ents {
		if strings.EqualFold(strings.TrimPrefix(e.Name, prefix), name) {
			return e, true, nil
		}
	}
	return commitgraph.RootEntry{}, false, nil
}

// PutObject stores the object chunk under prefix+name in the
// transaction's root.
func (t *Txn) PutObject(ctx context.Context, prefix, name string, chunk []byte) error {
	if t.readOnly {
		return fmt.Errorf("%w: cannot change %s%s at a commit", ErrReadOnly, prefix, name)
	}
	addr, err := t.db.store.Put(ctx, chunk)
	if err != nil {
		return err
	}
	root, err := t.root.Edit(ctx, commitgraph.RootEdit{Name: prefix + name, Addr: addr})
	if err != nil {
		return err
	}
	t.root = root
	return nil
}

// DropObject removes the object prefix+name (matched without case) from
// the transaction's root and reports whether it was there.
func (t *Txn) DropObject(ctx context.Context, prefix, name string) (bool, error) {
	if t.readOnly {
		return false, fmt.Errorf("%w: cannot change %s%s at a commit", ErrReadOnly, prefix, name)
	}
	e, ok, err := findObject(ctx, t.root, prefix, name)
	if err != nil || !ok {
		return false, err
	}
	root, err := t.root.Edit(ctx, commitgraph.RootEdit{Name: e.Name, Delete: true})
	if err != nil {
		return false, err
	}
	t.root = root
	return true, nil
}

// Objects reads the objects of kind (fields of kinds) under prefix in the
// transaction's root, or the one named name if it is not "".
func (t *Txn) Objects(ctx context.Context, prefix, kind string, kinds []Kind, name string) ([]Object, error) {
	var ents []commitgraph.RootEntry
	if name != "" {
		e, ok, err := findObject(ctx, t.root, prefix, name)
		if err != nil || !ok {
			return nil, err
		}
		ents = []commitgraph.RootEntry{e}
	} else {
		var err error
		if ents, err = t.root.Entries(ctx, prefix); err != nil {
			return nil, err
		}
	}
	var out []Object
	for _, e := range ents {
		b, err := t.db.store.Get(ctx, e.Addr)
		if err != nil {
			return nil, err
		}
		o, err := DecodeObject(strings.TrimPrefix(e.Name, prefix), kind, kinds, b)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}
