package tablemerge

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tables"
)

// Schema merge.
//
// A schema changed on one side only is that side's. When both sides
// changed it, the columns, primary key, indexes and checks are merged by
// name, each three ways: a part changed on one side takes that change, a
// part changed the same way on both sides takes it once, and a part
// changed differently on each side (a column whose type both changed, an
// index both redefined, a column one side dropped that the other side
// indexes) is a schema conflict. Merged columns keep our order, with the
// columns only they added after ours.

func sameSchema(a, b *tables.Schema) bool {
	return bytes.Equal(tables.EncodeSchema(a), tables.EncodeSchema(b))
}

// merge3 merges one named part present (inX) or not on each side. It
// returns the merged part, whether it is present, and false for a
// conflict.
func merge3[T any](b, o, t T, inB, inO, inT bool, eq func(x, y T) bool) (T, bool, bool) {
	same := func(x, y T, inX, inY bool) bool { return inX == inY && (!inX || eq(x, y)) }
	switch {
	case same(o, t, inO, inT), same(b, t, inB, inT):
		return o, inO, true
	case same(b, o, inB, inO):
		return t, inT, true
	}
	var zero T
	return zero, false, false
}

// namedIndex is an index with its columns named, so that indexes of
// schemas with different column positions compare.
type namedIndex struct {
	ix   tables.Index
	cols []string
}

// namedIndexes returns the indexes of s with their columns named.
func namedIndexes(s *tables.Schema) []namedIndex {
	out := make([]namedIndex, len(s.Indexes))
	for i, ix := range s.Indexes {
		out[i] = namedIndex{ix: ix}
		for _, p := range ix.Columns {
			out[i].cols = append(out[i].cols, strings.ToLower(s.Columns[p].Name))
		}
	}
	return out
}

// mergeNamed merges three versions of a list of parts named by key
// (case-insensitive names), part by part with merge3, in ours' order and
// then theirs' new parts. It returns the parts kept and their keys, or
// false and the key of a part both sides changed differently.
func mergeNamed[T any](base, ours, theirs []T, key func(T) string, eq func(x, y T) bool) ([]T, []string, string, bool) {
	byKey := func(xs []T) map[string]T {
		m := make(map[string]T, len(xs))
		for _, x := range xs {
			m[key(x)] = x
		}
		return m
	}
	bm, om, tm := byKey(base), byKey(ours), byKey(theirs)
	order := make([]string, 0, len(ours)+len(theirs))
	for _, x := range ours {
		order = append(order, key(x))
	}
	for _, x := range theirs {
		if _, ok := om[key(x)]; !ok {
			order = append(order, key(x))
		}
	}
	var kept []T
	var keys []string
	for _, k := range order {
		b, inB := bm[k]
		o, inO := om[k]
		t, inT := tm[k]
		x, in, ok := merge3(b, o, t, inB, inO, inT, eq)
		if !ok {
			return nil, nil, k, false
		}
		if in {
			kept, keys = append(kept, x), append(keys, k)
		}
	}
	return kept, keys, "", true
}

func sameIndex(a, b namedIndex) bool {
	pa, pb := a.ix.Prefix, b.ix.Prefix
	if len(pa) == 0 {
		pa = make([]int, len(a.cols))
	}
	if len(pb) == 0 {
		pb = make([]int, len(b.cols))
	}
	return a.ix.Name == b.ix.Name && a.ix.Unique == b.ix.Unique && a.ix.Comment == b.ix.Comment &&
		slices.Equal(a.cols, b.cols) && slices.Equal(pa, pb)
}

func pkNames(s *tables.Schema) []string {
	out := make([]string, len(s.PrimaryKey))
	for i, p := range s.PrimaryKey {
		out[i] = strings.ToLower(s.Columns[p].Name)
	}
	return out
}

// mergeSchemas merges the schema changes of table name from base to ours
// and to theirs.
func mergeSchemas(name string, base, ours, theirs *tables.Schema) (*tables.Schema, error) {
	switch {
	case sameSchema(ours, theirs) || sameSchema(base, theirs):
		return ours, nil
	case sameSchema(base, ours):
		return theirs, nil
	}
	conflict := func(format string, args ...any) error {
		return &SchemaConflictError{Table: name, msg: fmt.Sprintf("%v: table %q: %s; change the schema on one branch to match the other, then merge again", ErrSchemaConflict, name, fmt.Sprintf(format, args...))}
	}
	out := &tables.Schema{}

	// Columns, by name.
	cols, colKeys, bad, ok := mergeNamed(base.Columns, ours.Columns, theirs.Columns,
		func(c tables.Column) string { return strings.ToLower(c.Name) }, func(x, y tables.Column) bool { return x == y })
	if !ok {
		err := conflict("both branches changed column %q differently", bad).(*SchemaConflictError)
		ourName, theirName := bad, bad
		for _, c := range ours.Columns {
			if strings.ToLower(c.Name) == bad {
				ourName = c.Name
			}
		}
		for _, c := range theirs.Columns {
			if strings.ToLower(c.Name) == bad {
				theirName = c.Name
			}
		}
		err.Description = fmt.Sprintf("different column definitions for our column %s and their column %s", ourName, theirName)
		return nil, err
	}
	out.Columns = cols
	pos := map[string]int{}
	for i, k := range colKeys {
		pos[k] = i
	}
	positions := func(what string, names []string) ([]int, error) {
		ps := make([]int, len(names))
		for i, n := range names {
			p, ok := pos[n]
			if !ok {
				return nil, conflict("%s uses column %q, which the other branch dropped", what, n)
			}
			ps[i] = p
		}
		return ps, nil
	}

	// Primary key.
	pk, _, ok := merge3(pkNames(base), pkNames(ours), pkNames(theirs), true, true, true, slices.Equal[[]string])
	if !ok {
		return nil, conflict("both branches changed the primary key differently")
	}
	var err error
	if out.PrimaryKey, err = positions("the primary key", pk); err != nil {
		return nil, err
	}

	// Indexes, by name.
	ixs, _, bad, ok := mergeNamed(namedIndexes(base), namedIndexes(ours), namedIndexes(theirs),
		func(ix namedIndex) string { return strings.ToLower(ix.ix.Name) }, sameIndex)
	if !ok {
		return nil, conflict("both branches changed index %q differently", bad)
	}
	for _, ix := range ixs {
		if ix.ix.Columns, err = positions(fmt.Sprintf("index %q", ix.ix.Name), ix.cols); err != nil {
			return nil, err
		}
		out.Indexes = append(out.Indexes, ix.ix)
	}

	// Checks, by name.
	checks, _, bad, ok := mergeNamed(base.Checks, ours.Checks, theirs.Checks,
		func(c tables.Check) string { return strings.ToLower(c.Name) }, func(x, y tables.Check) bool { return x == y })
	if !ok {
		return nil, conflict("both branches changed check %q differently", bad)
	}
	out.Checks = checks
	if err := out.Validate(); err != nil {
		return nil, conflict("the merged schema is not valid: %v", err)
	}
	return out, nil
}

// migrator rewrites rows of one schema into another, by column name.
type migrator struct {
	table    string
	from, to *tables.Schema
	src      []int // per column of to: its position in from, or -1
	identity bool
	def      DefaultFunc
}

func newMigrator(table string, from, to *tables.Schema, def DefaultFunc) *migrator {
	m := &migrator{table: table, from: from, to: to, src: make([]int, len(to.Columns)), def: def}
	m.identity = len(from.Columns) == len(to.Columns)
	for i, c := range to.Columns {
		m.src[i] = from.ColumnIndex(c.Name)
		if m.src[i] != i || from.Columns[i].Kind != c.Kind {
			m.identity = false
		}
	}
	return m
}

// row returns row (of schema from) in schema to; nil stays nil.
func (m *migrator) row(row []tables.Value) ([]tables.Value, error) {
	if row == nil || m.identity {
		return row, nil
	}
	out := make([]tables.Value, len(m.to.Columns))
	for i, p := range m.src {
		col := m.to.Columns[i]
		if p < 0 {
			v, err := m.def(m.table, col)
			if err != nil {
				return nil, err
			}
			out[i] = v
			continue
		}
		v := row[p]
		if !v.IsNull() && v.Kind() != col.Kind {
			cv, err := convert(v, col.Kind)
			if err != nil {
				return nil, fmt.Errorf("%w: table %q: column %q changed type on one branch (%s to %s) and rows of the other branch cannot be converted: %v", ErrSchemaConflict, m.table, col.Name, m.from.Columns[p].Type, col.Type, err)
			}
			v = cv
		}
		out[i] = v
	}
	return out, nil
}

// convert converts between the kinds whose conversion loses nothing that
// the new type could hold: integers of either sign, floats, and any value
// to text.
func convert(v tables.Value, to prolly.Kind) (tables.Value, error) {
	switch {
	case v.Kind() == prolly.KindInt && to == prolly.KindUint && v.AsInt() >= 0:
		return prolly.Uint(uint64(v.AsInt())), nil
	case v.Kind() == prolly.KindUint && to == prolly.KindInt && v.AsUint() <= 1<<63-1:
		return prolly.Int(int64(v.AsUint())), nil
	case (v.Kind() == prolly.KindInt || v.Kind() == prolly.KindUint || v.Kind() == prolly.KindFloat32) && to == prolly.KindFloat64:
		return prolly.Float64(asFloat(v)), nil
	case to == prolly.KindString && v.Kind() == prolly.KindInt:
		return prolly.String(strconv.FormatInt(v.AsInt(), 10)), nil
	case to == prolly.KindString && v.Kind() == prolly.KindUint:
		return prolly.String(strconv.FormatUint(v.AsUint(), 10)), nil
	}
	return tables.Value{}, fmt.Errorf("no conversion of %s to %s", v.Kind(), to)
}

func asFloat(v tables.Value) float64 {
	switch v.Kind() {
	case prolly.KindInt:
		return float64(v.AsInt())
	case prolly.KindUint:
		return float64(v.AsUint())
	}
	return v.AsFloat64()
}

// DefaultFunc returns the value a row migrated into a schema that added
// column col takes there.
type DefaultFunc func(table string, col tables.Column) (tables.Value, error)

// LiteralDefault is the DefaultFunc used when Options.Default is nil: NULL
// for a column without a default, and the value of a literal default (a
// number, a quoted string, NULL, TRUE or FALSE). Other default expressions
// need the SQL layer's evaluator.
func LiteralDefault(table string, col tables.Column) (tables.Value, error) {
	d := strings.TrimSpace(col.Default)
	for len(d) >= 2 && d[0] == '(' && d[len(d)-1] == ')' {
		d = strings.TrimSpace(d[1 : len(d)-1])
	}
	fail := func() (tables.Value, error) {
		return tables.Value{}, fmt.Errorf("%w: table %q: column %q was added on one branch with the default %q, which the merge cannot compute for the other branch's rows; give the column a literal default or add it on both branches", ErrSchemaConflict, table, col.Name, col.Default)
	}
	switch {
	case d == "" && !col.Nullable:
		// MySQL's implicit default of a NOT NULL column.
		switch col.Kind {
		case prolly.KindInt:
			return prolly.Int(0), nil
		case prolly.KindUint:
			return prolly.Uint(0), nil
		case prolly.KindFloat64:
			return prolly.Float64(0), nil
		case prolly.KindFloat32:
			return prolly.Float32(0), nil
		case prolly.KindString:
			return prolly.String(""), nil
		case prolly.KindBytes:
			return prolly.Bytes(nil), nil
		}
		return fail()
	case d == "" || strings.EqualFold(d, "NULL"):
		return prolly.Null(), nil
	}
	if strings.EqualFold(d, "TRUE") {
		d = "1"
	} else if strings.EqualFold(d, "FALSE") {
		d = "0"
	}
	if len(d) >= 2 && (d[0] == '\'' || d[0] == '"') && d[len(d)-1] == d[0] {
		s := strings.ReplaceAll(d[1:len(d)-1], string(d[0])+string(d[0]), string(d[0]))
		switch col.Kind {
		case prolly.KindString:
			return prolly.String(s), nil
		case prolly.KindBytes:
			return prolly.Bytes([]byte(s)), nil
		}
		d = s
	}
	switch col.Kind {
	case prolly.KindInt:
		if n, err := strconv.ParseInt(d, 10, 64); err == nil {
			return prolly.Int(n), nil
		}
	case prolly.KindUint:
		if n, err := strconv.ParseUint(d, 10, 64); err == nil {
			return prolly.Uint(n), nil
		}
	case prolly.KindFloat64:
		if f, err := strconv.ParseFloat(d, 64); err == nil {
			return prolly.Float64(f), nil
		}
	case prolly.KindFloat32:
		if f, err := strconv.ParseFloat(d, 32); err == nil {
			return prolly.Float32(float32(f)), nil
		}
	case prolly.KindString:
		if _, err := strconv.ParseFloat(d, 64); err == nil {
			return prolly.String(d), nil // a number's text
		}
	}
	return fail()
}
