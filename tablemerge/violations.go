package tablemerge

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tables"
)

// Constraint violations of a table.
//
// A merge whose merged rows break a unique key records every row involved
// instead of failing, and the layers above record the rows that break a
// foreign key or a CHECK (they know those constraints) the same way, as
// Dolt does: in the root value under "violations/<table>"
// (ViolationsPrefix), beside the table, which holds the rows as merged.
// The entry names a violation-set chunk, format version 1:
//
//	+------------------------------------------------------------+
//	| magic "VVIOLAT\n" (8) | format version u32 big-endian (1)    |
//	| schema address [20]     the rows' schema (tables.EncodeSchema) |
//	| violation map address [20]  a prolly map; never empty          |
//	+------------------------------------------------------------+
//
// The violation map is keyed by the tuple (type, row key, info), encoded
// with prolly.EncodeKey as Int(type), Bytes(the row's key in the table's
// row map), String(info): one entry per row and broken constraint, in
// Dolt's order (type first). Each value is:
//
//	+------------------------------------------------------------+
//	| from [20]   the commit whose merge found it; zero if none      |
//	| row: prolly.EncodeTuple of every column of the schema, values  |
//	|      longer than prolly.LargeInlineLimit as Refs (PutLarge)    |
//	+------------------------------------------------------------+
//
// info is a JSON object in MySQL's canonical text (ViolationInfo): which
// constraint, as Dolt's violation_info column describes it.

const (
	// ViolationsPrefix begins the root value name of a table's violations.
	ViolationsPrefix = commitgraph.ViolationsPrefix

	violationMagic   = "VVIOLAT\n"
	violationVersion = 1
	violationSize    = 8 + 4 + 2*chunks.AddressSize
)

// ViolationType is the kind of constraint a violation breaks; the values
// are stored (the first field of a violation's key) and never change.
type ViolationType uint8

// The kinds of violations, in Dolt's order.
const (
	ForeignKeyViolation ViolationType = 1
	UniqueViolation     ViolationType = 2
	CheckViolation      ViolationType = 3
	NotNullViolation    ViolationType = 4
)

// ViolationTypeNames are the names of the violation types, in their
// order: the values of dolt_constraint_violations_<t>.violation_type.
var ViolationTypeNames = []string{"foreign key", "unique index", "check constraint", "not null"}

func (t ViolationType) String() string {
	if t >= ForeignKeyViolation && t <= NotNullViolation {
		return ViolationTypeNames[t-1]
	}
	return fmt.Sprintf("violation type %d", uint8(t))
}

// Violation is one row that breaks one constraint.
type Violation struct {
	Type ViolationType
	// Key is the row's key in the table's row map.
	Key []byte
	// Info describes the constraint, as JSON text (ViolationInfo).
	Info string
	// From is the commit whose merge found it; zero if none (found by
	// verifying the working set).
	From chunks.Address
	// Row is the row, in the set's schema.
	Row []tables.Value
}

// MapKey returns the violation's key in the violation map.
func (v Violation) MapKey() []byte {
	return prolly.EncodeKey(nil, prolly.Int(int64(v.Type)), prolly.Bytes(v.Key), prolly.String(v.Info))
}

// InfoField is one field of a violation's info.
type InfoField struct {
	Name  string
	Value any // a string, []string, or another value encoding/json takes
}

// ViolationInfo returns the JSON text of fields as MySQL writes a JSON
// object: keys shorter first, then in byte order; ", " and ": " between
// them. It is the one text of each info, as violation keys hold it.
func ViolationInfo(fields ...InfoField) string {
	fs := append([]InfoField(nil), fields...)
	sort.SliceStable(fs, func(i, j int) bool {
		if len(fs[i].Name) != len(fs[j].Name) {
			return len(fs[i].Name) < len(fs[j].Name)
		}
		return fs[i].Name < fs[j].Name
	})
	var b strings.Builder
	b.WriteByte('{')
	for i, f := range fs {
		if i > 0 {
			b.WriteString(", ")
		}
		k, _ := json.Marshal(f.Name)
		b.Write(k)
		b.WriteString(": ")
		switch v := f.Value.(type) {
		case []string:
			b.WriteByte('[')
			for j, s := range v {
				if j > 0 {
					b.WriteString(", ")
				}
				q, _ := json.Marshal(s)
				b.Write(q)
			}
			b.WriteByte(']')
		default:
			q, err := json.Marshal(v)
			if err != nil {
				q = []byte("null")
			}
			b.Write(q)
		}
	}
	b.WriteByte('}')
	return b.String()
}

// ViolationSet is the violations of one table, as stored: immutable.
type ViolationSet struct {
	ns     *prolly.NodeStore
	Schema *tables.Schema
	m      prolly.Map
}

// NewViolationSet returns an empty violation set of rows of schema s.
func NewViolationSet(ns *prolly.NodeStore, s *tables.Schema) *ViolationSet {
	return &ViolationSet{ns: ns, Schema: s, m: prolly.NewMap(ns)}
}

// Count returns the number of violations.
func (vs *ViolationSet) Count() uint64 { return vs.m.Count() }

func encodeViolationSet(schema, m chunks.Address) []byte {
	b := make([]byte, 0, violationSize)
	b = append(b, violationMagic...)
	b = binary.BigEndian.AppendUint32(b, violationVersion)
	b = append(b, schema[:]...)
	return append(b, m[:]...)
}

// DecodeViolationSetChunk decodes a violation-set chunk into the
// addresses it names. It returns an error wrapping ErrCorrupt for bytes
// that are not one; it never panics.
func DecodeViolationSetChunk(b []byte) (schema, violations chunks.Address, err error) {
	if len(b) != violationSize || string(b[:8]) != violationMagic {
		return schema, violations, corrupt("not a violation-set chunk (%d bytes)", len(b))
	}
	if v := binary.BigEndian.Uint32(b[8:]); v != violationVersion {
		return schema, violations, corrupt("violation-set format version %d; this build reads version %d", v, violationVersion)
	}
	copy(schema[:], b[12:])
	copy(violations[:], b[12+chunks.AddressSize:])
	if schema.IsEmpty() || violations.IsEmpty() {
		return schema, violations, corrupt("violation-set chunk names no schema or no violations")
	}
	return schema, violations, nil
}

// LoadViolationSet reads the violation set stored at addr.
func LoadViolationSet(ctx context.Context, ns *prolly.NodeStore, addr chunks.Address) (*ViolationSet, error) {
	b, err := ns.Store().Get(ctx, addr)
	if err != nil {
		return nil, fmt.Errorf("tablemerge: violation set %s: %w", addr, err)
	}
	sa, ma, err := DecodeViolationSetChunk(b)
	if err != nil {
		return nil, fmt.Errorf("tablemerge: violation set %s: %w", addr, err)
	}
	sb, err := ns.Store().Get(ctx, sa)
	if err != nil {
		return nil, fmt.Errorf("tablemerge: violation set %s: schema: %w", addr, err)
	}
	s, err := tables.DecodeSchema(sb)
	if err != nil {
		return nil, fmt.Errorf("tablemerge: violation set %s: %w", addr, err)
	}
	m, err := prolly.OpenMap(ctx, ns, ma)
	if err != nil {
		return nil, fmt.Errorf("tablemerge: violation set %s: %w", addr, err)
	}
	return &ViolationSet{ns: ns, Schema: s, m: m}, nil
}

// Write stores the violation set and returns its address. An empty set
// cannot be stored: its table has no violations, and no root entry.
func (vs *ViolationSet) Write(ctx context.Context) (chunks.Address, error) {
	if vs.m.Count() == 0 {
		return chunks.Address{}, fmt.Errorf("tablemerge: an empty violation set is not stored; delete the table's %s entry instead", ViolationsPrefix)
	}
	sa, err := vs.ns.Store().Put(ctx, tables.EncodeSchema(vs.Schema))
	if err != nil {
		return chunks.Address{}, err
	}
	return vs.ns.Store().Put(ctx, encodeViolationSet(sa, vs.m.Address()))
}

// EncodeViolationValue returns the stored value of v (its key fields are
// not part of it), writing values too long to keep inline to ns.
func EncodeViolationValue(ctx context.Context, ns *prolly.NodeStore, v Violation) ([]byte, error) {
	stored := make([]tables.Value, len(v.Row))
	for i, x := range v.Row {
		switch k := x.Kind(); k {
		case prolly.KindString, prolly.KindBytes, prolly.KindJSON:
			lv, err := prolly.PutLarge(ctx, ns, k, x.AsBytes())
			if err != nil {
				return nil, err
			}
			x = lv
		}
		stored[i] = x
	}
	b := append([]byte(nil), v.From[:]...)
	b = prolly.EncodeTuple(b, stored...)
	if len(b) > prolly.MaxValueSize {
		return nil, fmt.Errorf("tablemerge: the violation's row takes %d bytes, at most %d", len(b), prolly.MaxValueSize)
	}
	return b, nil
}

// DecodeViolation decodes a stored violation (its map key and value) with
// ncols columns per row. Refs stay Refs. It returns an error wrapping
// ErrCorrupt for bytes that are not a violation; it never panics.
func DecodeViolation(key, val []byte, ncols int) (Violation, error) {
	var v Violation
	k, err := prolly.DecodeKey(key)
	if err != nil {
		return v, fmt.Errorf("%w: violation key: %w", ErrCorrupt, err)
	}
	if len(k) != 3 || k[0].Kind() != prolly.KindInt || k[1].Kind() != prolly.KindBytes || k[2].Kind() != prolly.KindString {
		return v, corrupt("violation key %x is not (type, row key, info)", key)
	}
	if t := k[0].AsInt(); t < int64(ForeignKeyViolation) || t > int64(NotNullViolation) {
		return v, corrupt("violation type %d", t)
	}
	v.Type, v.Key, v.Info = ViolationType(k[0].AsInt()), k[1].AsBytes(), k[2].AsString()
	if !bytes.Equal(v.MapKey(), key) {
		return Violation{}, corrupt("violation key %x is not canonical", key)
	}
	if len(val) < chunks.AddressSize {
		return Violation{}, corrupt("violation value of %d bytes", len(val))
	}
	copy(v.From[:], val)
	if v.Row, err = prolly.DecodeTuple(val[chunks.AddressSize:]); err != nil {
		return Violation{}, fmt.Errorf("%w: violation row: %w", ErrCorrupt, err)
	}
	if len(v.Row) != ncols {
		return Violation{}, corrupt("violation row has %d values for %d columns", len(v.Row), ncols)
	}
	return v, nil
}

// Each calls fn for every violation in key order, until fn returns
// false. Large values are loaded.
func (vs *ViolationSet) Each(ctx context.Context, fn func(Violation) bool) error {
	it := vs.m.IterAll(ctx)
	for it.Next(ctx) {
		v, err := DecodeViolation(it.Key(), it.Value(), len(vs.Schema.Columns))
		if err != nil {
			return err
		}
		if v.Row, err = tables.LoadLarge(ctx, vs.ns, v.Row); err != nil {
			return err
		}
		if !fn(v) {
			return nil
		}
	}
	return it.Err()
}

// Edit returns the set with the violations put and the map keys in del
// deleted.
func (vs *ViolationSet) Edit(ctx context.Context, put []Violation, del [][]byte) (*ViolationSet, error) {
	ed := vs.m.Edit()
	for _, v := range put {
		b, err := EncodeViolationValue(ctx, vs.ns, v)
		if err != nil {
			return nil, err
		}
		if err := ed.Put(v.MapKey(), b); err != nil {
			return nil, err
		}
	}
	for _, k := range del {
		ed.Delete(k)
	}
	m, err := ed.Map(ctx)
	if err != nil {
		return nil, err
	}
	n := *vs
	n.m = m
	return &n, nil
}

// TableViolations is the number of violations in one table.
type TableViolations struct {
	Table string
	Count uint64
}

// ListViolations returns the tables of root with violations, by name.
func ListViolations(ctx context.Context, ns *prolly.NodeStore, root commitgraph.RootValue) ([]TableViolations, error) {
	ents, err := root.Entries(ctx, ViolationsPrefix)
	if err != nil {
		return nil, err
	}
	var out []TableViolations
	for _, e := range ents {
		vs, err := LoadViolationSet(ctx, ns, e.Addr)
		if err != nil {
			return nil, err
		}
		out = append(out, TableViolations{Table: strings.TrimPrefix(e.Name, ViolationsPrefix), Count: vs.Count()})
	}
	return out, nil
}

// GetViolations returns the violations of table in root, nil if none.
func GetViolations(ctx context.Context, ns *prolly.NodeStore, root commitgraph.RootValue, table string) (*ViolationSet, error) {
	addr, ok, err := root.Get(ctx, ViolationsPrefix+table)
	if err != nil || !ok {
		return nil, err
	}
	return LoadViolationSet(ctx, ns, addr)
}

// SetViolations returns root with table's violations set to vs: stored,
// or the entry removed when vs is nil or empty.
func SetViolations(ctx context.Context, root commitgraph.RootValue, table string, vs *ViolationSet) (commitgraph.RootValue, error) {
	if vs == nil || vs.Count() == 0 {
		return root.Edit(ctx, commitgraph.RootEdit{Name: ViolationsPrefix + table, Delete: true})
	}
	addr, err := vs.Write(ctx)
	if err != nil {
		return root, err
	}
	return root.Edit(ctx, commitgraph.RootEdit{Name: ViolationsPrefix + table, Addr: addr})
}

// Check verifies the violation set: its map passes prolly's Check, it is
// not empty, and every entry decodes, its row holding the key its key
// names for a table with a primary key.
func (vs *ViolationSet) Check(ctx context.Context) error {
	if err := vs.m.Check(ctx); err != nil {
		return fmt.Errorf("tablemerge: violation map: %w", err)
	}
	if vs.m.Count() == 0 {
		return corrupt("an empty violation set")
	}
	it := vs.m.IterAll(ctx)
	for it.Next(ctx) {
		v, err := DecodeViolation(it.Key(), it.Value(), len(vs.Schema.Columns))
		if err != nil {
			return fmt.Errorf("tablemerge: violation at key %x: %w", it.Key(), err)
		}
		if vs.Schema.Keyless() {
			continue
		}
		key, err := prolly.DecodeKey(v.Key)
		if err != nil || len(key) != len(vs.Schema.PrimaryKey) {
			return corrupt("violation row key %x is not a primary key of %d columns (%v)", v.Key, len(vs.Schema.PrimaryKey), err)
		}
		for i, p := range vs.Schema.PrimaryKey {
			if v.Row[p] != key[i] {
				return corrupt("violation at row key %x holds a row with key value %v", v.Key, v.Row[p])
			}
		}
	}
	return it.Err()
}
