package sqlserver

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tables"
)

func TestCollatedLookups(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, "CREATE TABLE c (pk INT PRIMARY KEY, v VARCHAR(20) COLLATE utf8mb4_0900_ai_ci, KEY (v))")
	env.exec(ctx, "INSERT INTO c VALUES (1, 'abc'), (2, 'ABC'), (3, 'aBc'), (4, 'abd'), (5, 'AB')")
	env.check(ctx, "SELECT pk FROM c WHERE v = 'abc' ORDER BY pk", "[1] [2] [3]")
	env.check(ctx, "SELECT pk FROM c WHERE v IN ('abc') ORDER BY pk", "[1] [2] [3]")
	env.check(ctx, "SELECT pk FROM c WHERE v <= 'aBc' ORDER BY pk", "[1] [2] [3] [5]")
	env.check(ctx, "SELECT pk FROM c WHERE v > 'ABC' ORDER BY pk", "[4]")
	env.exec(ctx, "CREATE TABLE e (pk INT PRIMARY KEY, e ENUM('x', 'y', 'z'), KEY (e))")
	env.exec(ctx, "INSERT INTO e VALUES (1, 'x'), (2, 'y'), (3, 'z'), (4, 'y')")
	env.check(ctx, "SELECT pk FROM e WHERE e = 'y' ORDER BY pk", "[2] [4]")
	env.check(ctx, "SELECT pk FROM e WHERE e > 'x' ORDER BY pk", "[2] [3] [4]")
	env.check(ctx, "SELECT pk FROM e WHERE e = 2 ORDER BY pk", "[2] [4]")
}

func TestDecimalScale(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, "CREATE TABLE d (id INT PRIMARY KEY, v DECIMAL(10,4), KEY (v))")
	env.exec(ctx, "INSERT INTO d VALUES (1, 2.5), (2, 1.2340), (3, 0)")
	env.check(ctx, "SELECT v FROM d ORDER BY id", "[2.5000] [1.2340] [0.0000]")
	env.check(ctx, "SELECT id FROM d WHERE v = 2.50", "[1]")
}

// collatedTable is a table keyed and indexed by strings in three
// collations, built through sqlCollations.
func collatedTable(t *testing.T) *tables.Table {
	ctx := context.Background()
	s := &tables.Schema{
		Columns: []tables.Column{
			{Name: "k", Type: "varchar(20)", Kind: prolly.KindString, Collation: "utf8mb4_0900_ai_ci"},
			{Name: "g", Type: "varchar(20)", Kind: prolly.KindString, Nullable: true, Collation: "utf8mb4_general_ci"},
			{Name: "s", Type: "varchar(20)", Kind: prolly.KindString, Nullable: true, Collation: "latin1_swedish_ci"},
		},
		PrimaryKey: []int{0},
		Indexes:    []tables.Index{{Name: "g", Columns: []int{1}}, {Name: "s", Columns: []int{2, 1}}},
	}
	tb, err := tables.New(prolly.NewNodeStore(chunks.NewMemoryStore()), s, sqlCollations{})
	if err != nil {
		t.Fatal(err)
	}
	ed := tb.Edit()
	for _, r := range [][3]string{{"Straße", "ÄBC", "åa"}, {"abc", "abd", "Zz"}, {"ÅNGSTRÖM", "x", "ö"}, {"Ab", "AB", "ab"}, {"ñu", "Ñu", "nu"}} {
		if _, err := ed.Insert(ctx, []tables.Value{prolly.String(r[0]), prolly.String(r[1]), prolly.String(r[2])}); err != nil {
			t.Fatal(err)
		}
	}
	if tb, err = ed.Table(ctx); err != nil {
		t.Fatal(err)
	}
	return tb
}

// TestCollatedTableGolden pins the address of a table keyed by collation
// sort keys: the bytes storage writes for collated columns do not change
// with how the SQL layer hands its collations to storage (the address was
// the same when they were registered globally).
func TestCollatedTableGolden(t *testing.T) {
	a, err := collatedTable(t).Write(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := "f5su2jkhj44ln5uq411h02rekklsjqc6"; a.String() != want {
		t.Errorf("collated table at %s, want %s", a, want)
	}
}

// TestSQLCollations: storage knows every collation the engine sorts by,
// other than the binary ones, by name, with the sort keys of
// collationSortKey; binary collations and unknown names it leaves to
// storage's binary order or refuses.
func TestSQLCollations(t *testing.T) {
	it := sql.NewCollationsIterator()
	known := 0
	for {
		c, ok := it.Next()
		if !ok {
			break
		}
		f, got := sqlCollations{}.SortKey(c.Name)
		want := c.Sorter != nil && c.ID != sql.Collation_binary && !strings.HasSuffix(c.Name, "_bin")
		if got != want {
			t.Errorf("%s: known %v, want %v", c.Name, got, want)
			continue
		}
		if !got {
			continue
		}
		known++
		for _, s := range []string{"", "abc", "ÅNGSTRÖM", "Straße"} {
			if !bytes.Equal(f(s), collationSortKey(c.ID)(s)) {
				t.Errorf("%s: the sort key of %q differs", c.Name, s)
			}
		}
		if _, ok := (sqlCollations{}).SortKey(strings.ToUpper(c.Name)); !ok {
			t.Errorf("%s: not found in upper case", c.Name)
		}
	}
	if known < 10 {
		t.Errorf("only %d collations known", known)
	}
	if _, ok := (sqlCollations{}).SortKey("klingon_ci"); ok {
		t.Error("an unknown collation is known")
	}
}
