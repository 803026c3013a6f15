package tables

import (
	"fmt"
	"strings"

	"github.com/verso-db/verso/prolly"
)

// Value is one column value of a row.
type Value = prolly.Value

// Column describes one column of a table.
type Column struct {
	Name string
	// Type is the column's SQL type as text (for example "varchar(20)");
	// the SQL layer parses it. Storage uses Kind.
	Type string
	// Kind is the kind of the column's stored values (a prolly.Kind).
	Kind prolly.Kind
	// Nullable columns accept NULL.
	Nullable bool
	// Default is the default's expression text; "" means no default.
	Default string
	// Generated is the expression of a generated column; "" for none.
	Generated string
	// Virtual generated columns are computed on read, not stored by the
	// SQL layer (storage keeps whatever value it is given).
	Virtual bool
	// OnUpdate is the ON UPDATE expression text; "" for none.
	OnUpdate string
	// Hidden columns are not returned by SELECT *.
	Hidden bool
	// AutoIncrement columns take the next counter value when written as
	// NULL or 0. A table has at most one, of an integer kind.
	AutoIncrement bool
	// Collation names the ordering of a string column's keys; "" and
	// "binary" order by the bytes. Others come from the Collations the
	// table is opened with (New, Load).
	Collation string
	Comment   string
}

// Index is a secondary index over some of a table's columns.
type Index struct {
	Name    string
	Columns []int // column positions, in index order
	// Prefix holds a prefix length per column (0: the whole value), or is
	// empty for an index of whole values. A prefix keys a string column
	// on its first Prefix characters (then its collation's sort key) and
	// a bytes column on its first Prefix bytes, as MySQL does; a unique
	// index then constrains the prefixes.
	Prefix  []int
	Unique  bool
	Comment string
}

// MaxPrefix is the longest index prefix a schema takes.
const MaxPrefix = 1<<16 - 1

// PrefixOf returns the prefix length of the index's j-th column, 0 for the
// whole value.
func (ix *Index) PrefixOf(j int) int {
	if j < len(ix.Prefix) {
		return ix.Prefix[j]
	}
	return 0
}

// hasPrefix reports whether any column of the index is keyed on a prefix.
func (ix *Index) hasPrefix() bool {
	for _, n := range ix.Prefix {
		if n != 0 {
			return true
		}
	}
	return false
}

// Check is a CHECK constraint: its SQL expression, kept as text for the
// SQL layer to evaluate.
type Check struct {
	Name     string
	Expr     string
	Enforced bool
}

// Schema is a table's columns, primary key, secondary indexes and checks.
type Schema struct {
	Columns []Column
	// PrimaryKey lists column positions in key order. A table without one
	// is keyless: its rows are keyed by a hash of their contents, and equal
	// rows are counted.
	PrimaryKey []int
	Indexes    []Index
	Checks     []Check
}

// PrimaryIndexName is the name under which duplicate primary keys are
// reported, as MySQL does.
const PrimaryIndexName = "PRIMARY"

// Keyless reports whether the table has no primary key.
func (s *Schema) Keyless() bool { return len(s.PrimaryKey) == 0 }

// ColumnIndex returns the position of the column named name (compared
// case-insensitively), or -1.
func (s *Schema) ColumnIndex(name string) int {
	for i, c := range s.Columns {
		if strings.EqualFold(c.Name, name) {
			return i
		}
	}
	return -1
}

// IndexByName returns the position of the index named name (compared
// case-insensitively), or -1.
func (s *Schema) IndexByName(name string) int {
	for i, ix := range s.Indexes {
		if strings.EqualFold(ix.Name, name) {
			return i
		}
	}
	return -1
}

// AutoIncrementColumn returns the position of the auto-increment column, or
// -1.
func (s *Schema) AutoIncrementColumn() int {
	for i, c := range s.Columns {
		if c.AutoIncrement {
			return i
		}
	}
	return -1
}

// Clone returns a deep copy of s.
func (s *Schema) Clone() *Schema {
	c := &Schema{
		Columns:    append([]Column(nil), s.Columns...),
		PrimaryKey: append([]int(nil), s.PrimaryKey...),
		Checks:     append([]Check(nil), s.Checks...),
	}
	for _, ix := range s.Indexes {
		ix.Columns = append([]int(nil), ix.Columns...)
		ix.Prefix = append([]int(nil), ix.Prefix...)
		c.Indexes = append(c.Indexes, ix)
	}
	return c
}

// keyKind reports whether values of kind k can be part of a key.
func keyKind(k prolly.Kind) bool {
	switch k {
	case prolly.KindJSON, prolly.KindRef:
		return false
	}
	return k != prolly.KindNull
}

func isIntKind(k prolly.Kind) bool { return k == prolly.KindInt || k == prolly.KindUint }

// Validate checks the schema's rules and returns an error wrapping
// ErrBadSchema that names the first one broken.
func (s *Schema) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrBadSchema, fmt.Sprintf(format, args...))
	}
	if len(s.Columns) == 0 {
		return bad("a table needs at least one column")
	}
	if len(s.Columns) > maxColumns {
		return bad("%d columns, at most %d", len(s.Columns), maxColumns)
	}
	seen := map[string]bool{}
	auto := 0
	for i, c := range s.Columns {
		if c.Name == "" {
			return bad("column %d has no name", i)
		}
		if seen[strings.ToLower(c.Name)] {
			return bad("duplicate column name %q", c.Name)
		}
		seen[strings.ToLower(c.Name)] = true
		if c.Kind < prolly.KindInt || c.Kind > prolly.KindJSON {
			return bad("column %q has no storable kind (%v)", c.Name, c.Kind)
		}
		if c.AutoIncrement {
			auto++
			if !isIntKind(c.Kind) {
				return bad("auto-increment column %q is not an integer", c.Name)
			}
		}
	}
	if auto > 1 {
		return bad("there can be only one auto-increment column")
	}
	checkKey := func(what string, cols []int) error {
		if len(cols) == 0 {
			return bad("%s has no columns", what)
		}
		used := map[int]bool{}
		for _, p := range cols {
			if p < 0 || p >= len(s.Columns) {
				return bad("%s names column %d of %d", what, p, len(s.Columns))
			}
			if used[p] {
				return bad("%s names column %q twice", what, s.Columns[p].Name)
			}
			used[p] = true
			if !keyKind(s.Columns[p].Kind) {
				return bad("%s: column %q of kind %v cannot be part of a key", what, s.Columns[p].Name, s.Columns[p].Kind)
			}
		}
		return nil
	}
	if len(s.PrimaryKey) > 0 {
		if err := checkKey("the primary key", s.PrimaryKey); err != nil {
			return err
		}
		for _, p := range s.PrimaryKey {
			if s.Columns[p].Nullable {
				return bad("primary key column %q must be NOT NULL", s.Columns[p].Name)
			}
		}
	}
	names := map[string]bool{strings.ToLower(PrimaryIndexName): true}
	for _, ix := range s.Indexes {
		if ix.Name == "" {
			return bad("an index has no name")
		}
		if names[strings.ToLower(ix.Name)] {
			return bad("duplicate index name %q", ix.Name)
		}
		names[strings.ToLower(ix.Name)] = true
		if err := checkKey(fmt.Sprintf("index %q", ix.Name), ix.Columns); err != nil {
			return err
		}
		if len(ix.Prefix) != 0 && len(ix.Prefix) != len(ix.Columns) {
			return bad("index %q has %d prefix lengths for %d columns", ix.Name, len(ix.Prefix), len(ix.Columns))
		}
		for j, n := range ix.Prefix {
			col := &s.Columns[ix.Columns[j]]
			switch {
			case n < 0 || n > MaxPrefix:
				return bad("index %q: prefix length %d of column %q is not in [0, %d]", ix.Name, n, col.Name, MaxPrefix)
			case n > 0 && col.Kind != prolly.KindString && col.Kind != prolly.KindBytes:
				return bad("index %q: column %q of kind %v cannot be indexed on a prefix", ix.Name, col.Name, col.Kind)
			}
		}
	}
	checks := map[string]bool{}
	for _, c := range s.Checks {
		if c.Name == "" || c.Expr == "" {
			return bad("a check constraint needs a name and an expression")
		}
		if checks[strings.ToLower(c.Name)] {
			return bad("duplicate check constraint name %q", c.Name)
		}
		checks[strings.ToLower(c.Name)] = true
	}
	return nil
}

const maxColumns = 4096
