package verso

import (
	"context"
	"fmt"
	"strings"

	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/prolly"
)

// A table's options that its schema does not hold are an object chunk
// (objects.go) stored under "tableopts/<table>", of kind "tableopts":
//
//	fields: comment String, collation name String [, origin String]
//
// The collation name is "" for the default one (this build writes it so;
// earlier builds wrote the default's name, which reads the same).
// The origin is the name the table was created with, kept by RENAME
// TABLE, so that a renamed table is told from a table dropped and another
// created (Renames): it is present only while the table goes by another
// name, and never empty. A table with no comment, the default collation
// and its own name has no options chunk. The SQL layer reads and writes
// the comment and collation; a build from before the origin refuses a
// chunk of three fields as malformed rather than lose the origin.
type TableOptions struct {
	Comment   string
	Collation string // the table's default collation's name; "": the default
	Origin    string // "": the table's own name
}

const tableOptsKind = "tableopts"

// EncodeTableOptions returns the chunk of o.
func EncodeTableOptions(o TableOptions) []byte {
	fields := []Value{prolly.String(o.Comment), prolly.String(o.Collation)}
	if o.Origin != "" {
		fields = append(fields, prolly.String(o.Origin))
	}
	return EncodeObject(tableOptsKind, fields...)
}

// DecodeTableOptions decodes the options chunk b of table name. A chunk
// that is not one is ErrBadObject.
func DecodeTableOptions(name string, b []byte) (TableOptions, error) {
	o, err := decodeAnyObject(name, b)
	if err != nil {
		return TableOptions{}, err
	}
	if o.Kind != tableOptsKind || len(o.Fields) < 2 || len(o.Fields) > 3 {
		return TableOptions{}, fmt.Errorf("%w: table options of %q: wrong kind or number of fields", ErrBadObject, name)
	}
	for i, f := range o.Fields {
		if f.Kind() != prolly.KindString {
			return TableOptions{}, fmt.Errorf("%w: table options of %q: field %d is not a string", ErrBadObject, name, i+1)
		}
	}
	opts := TableOptions{Comment: o.Fields[0].AsString(), Collation: o.Fields[1].AsString()}
	if len(o.Fields) == 3 {
		if opts.Origin = o.Fields[2].AsString(); opts.Origin == "" {
			return TableOptions{}, fmt.Errorf("%w: table options of %q: an empty origin", ErrBadObject, name)
		}
	}
	return opts, nil
}

// TableOrigin returns the identity of the table named exactly name in
// root: the name it was created with (its options' origin), else name.
func TableOrigin(ctx context.Context, root commitgraph.RootValue, name string) (string, error) {
	addr, ok, err := root.Get(ctx, commitgraph.TableOptsPrefix+name)
	if err != nil || !ok {
		return name, err
	}
	b, err := root.Map().NodeStore().Store().Get(ctx, addr)
	if err != nil {
		return "", err
	}
	o, err := DecodeTableOptions(name, b)
	if err != nil {
		return "", err
	}
	if o.Origin == "" {
		return name, nil
	}
	return o.Origin, nil
}

// RenameTable gives the table old (matched without case) the name new in
// the transaction's root, with its options, as RENAME TABLE does: the
// table keeps its identity (the name it was created with, TableOrigin),
// so that diffs and status show it renamed (Renames), not dropped and
// another created. A table renamed back to the name it was created with
// is as it was. new must not name another table.
func (t *Txn) RenameTable(ctx context.Context, old, new string) error {
	if t.readOnly {
		return fmt.Errorf("%w: cannot rename table %s at a commit", ErrReadOnly, old)
	}
	exact, addr, ok, err := FindTable(ctx, t.root, old)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: %q", ErrTableNotFound, old)
	}
	if other, _, taken, err := FindTable(ctx, t.root, new); err != nil {
		return err
	} else if taken && other != exact {
		return fmt.Errorf("verso: table %q exists already", new)
	}
	origin, err := TableOrigin(ctx, t.root, exact)
	if err != nil {
		return err
	}
	var opts TableOptions
	if oa, ok, err := t.root.Get(ctx, commitgraph.TableOptsPrefix+exact); err != nil {
		return err
	} else if ok {
		b, err := t.db.store.Get(ctx, oa)
		if err != nil {
			return err
		}
		if opts, err = DecodeTableOptions(exact, b); err != nil {
			return err
		}
	}
	opts.Origin = origin
	if strings.EqualFold(origin, new) {
		opts.Origin = ""
	}
	edits := []commitgraph.RootEdit{
		{Name: commitgraph.TablePrefix + exact, Delete: true},
		{Name: commitgraph.TableOptsPrefix + exact, Delete: true},
		{Name: commitgraph.TablePrefix + new, Addr: addr},
	}
	if opts != (TableOptions{}) {
		oa, err := t.db.store.Put(ctx, EncodeTableOptions(opts))
		if err != nil {
			return err
		}
		edits = append(edits, commitgraph.RootEdit{Name: commitgraph.TableOptsPrefix + new, Addr: oa})
	}
	root, err := t.root.Edit(ctx, dedupEdits(edits)...)
	if err != nil {
		return err
	}
	t.root = root
	return nil
}

// Rename is a table that goes by another name in one root than in
// another.
type Rename struct{ From, To string }

// Renames pairs the tables dropped between two roots (named as from has
// them) with those added (named as to has them): a table added is a
// dropped one renamed when both carry the same identity (TableOrigin,
// compared without case) and no other dropped or added table carries it.
// A table dropped and another created show as such, whatever their rows:
// the created table has an identity of its own.
func Renames(ctx context.Context, from, to commitgraph.RootValue, dropped, added []string) ([]Rename, error) {
	if len(dropped) == 0 || len(added) == 0 {
		return nil, nil
	}
	// origins returns, for each name, its identity in root (lower case),
	// and how many of the names carry each identity.
	origins := func(root commitgraph.RootValue, names []string) ([]string, map[string]int, error) {
		keys, count := make([]string, len(names)), map[string]int{}
		for i, n := range names {
			o, err := TableOrigin(ctx, root, n)
			if err != nil {
				return nil, nil, err
			}
			keys[i] = strings.ToLower(o)
			count[keys[i]]++
		}
		return keys, count, nil
	}
	goneKeys, gone, err := origins(from, dropped)
	if err != nil {
		return nil, err
	}
	madeKeys, made, err := origins(to, added)
	if err != nil {
		return nil, err
	}
	var out []Rename
	for i, n := range added {
		k := madeKeys[i]
		if made[k] != 1 || gone[k] != 1 {
			continue
		}
		for j, d := range dropped {
			if goneKeys[j] == k {
				out = append(out, Rename{From: d, To: n})
			}
		}
	}
	return out, nil
}
