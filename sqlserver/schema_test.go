package sqlserver

import (
	"fmt"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/planbuilder"

	"github.com/verso-db/verso/tables"
)

// TestSchemaRoundTrip converts engine columns of every storable type, with
// literal and expression defaults, to a stored schema and back.
func TestSchemaRoundTrip(t *testing.T) {
	ctx := sql.NewEmptyContext()
	var cols sql.Schema
	for i, tc := range typeCases() {
		c := &sql.Column{Name: "c" + string(rune('a'+i)), Type: tc.t, Nullable: i%2 == 1, Comment: "column " + tc.t.String()}
		cols = append(cols, c)
	}
	cols = append(cols,
		&sql.Column{Name: "id", Type: mustParse(t, "bigint"), AutoIncrement: true},
		&sql.Column{Name: "d1", Type: mustParse(t, "varchar(10)"), Nullable: true, Default: mustDefault(t, ctx, "'abc'", mustParse(t, "varchar(10)"), true)},
		&sql.Column{Name: "d2", Type: mustParse(t, "int"), Default: mustDefault(t, ctx, "(1 + 2)", mustParse(t, "int"), false)},
		&sql.Column{Name: "d3", Type: mustParse(t, "datetime(6)"), Nullable: true, Default: mustDefault(t, ctx, "(NOW(6))", mustParse(t, "datetime(6)"), true)},
	)
	pk := sql.NewPrimaryKeySchema(cols, len(cols)-4)
	idx := sql.IndexDefs{
		{Name: "u1", Constraint: sql.IndexConstraint_Unique, Columns: []sql.IndexColumn{{Name: "d1"}}},
		{Name: "i2", Columns: []sql.IndexColumn{{Name: "d2"}, {Name: "ca"}}, Comment: "two columns"},
	}
	s, err := storageSchema(pk, idx)
	if err != nil {
		t.Fatal(err)
	}
	decoded, err := tables.DecodeSchema(tables.EncodeSchema(s))
	if err != nil {
		t.Fatal(err)
	}
	back, err := engineSchema(ctx, "db", "t", decoded)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Schema) != len(cols) || len(back.PkOrdinals) != 1 || back.PkOrdinals[0] != len(cols)-4 {
		t.Fatalf("shape: %d columns, key %v", len(back.Schema), back.PkOrdinals)
	}
	for i, c := range cols {
		b := back.Schema[i]
		if b.Name != c.Name || !b.Type.Equals(c.Type) || b.Nullable != c.Nullable || b.AutoIncrement != c.AutoIncrement || b.Comment != c.Comment {
			t.Errorf("column %d: %s %s came back as %s %s", i, c.Name, c.Type, b.Name, b.Type)
		}
		if (c.Default == nil) != (b.Default == nil) || exprText(c.Default) != exprText(b.Default) {
			t.Errorf("column %s: default %v came back as %v", c.Name, c.Default, b.Default)
		}
		if b.Source != "t" || b.DatabaseSource != "db" || b.PrimaryKey != (i == len(cols)-4) {
			t.Errorf("column %s: source %q.%q, key %v", c.Name, b.DatabaseSource, b.Source, b.PrimaryKey)
		}
	}
	if len(decoded.Indexes) != 2 || !decoded.Indexes[0].Unique || decoded.Indexes[1].Comment != "two columns" {
		t.Fatalf("indexes: %+v", decoded.Indexes)
	}
}

func TestSchemaRefusals(t *testing.T) {
	cols := sql.Schema{{Name: "a", Type: mustParse(t, "text")}, {Name: "p", Type: mustParse(t, "point")}}
	if s, err := storageSchema(sql.NewPrimaryKeySchema(cols[:1]), sql.IndexDefs{{Name: "pre", Constraint: sql.IndexConstraint_Unique, Columns: []sql.IndexColumn{{Name: "a", Length: 10}}}}); err != nil || len(s.Indexes) != 1 || fmt.Sprint(s.Indexes[0].Prefix) != "[10]" {
		t.Errorf("a unique prefix index: %v, %+v; want it kept with prefix [10]", err, s)
	}
	if _, err := storageSchema(sql.NewPrimaryKeySchema(cols[:1]), sql.IndexDefs{{Name: "vec", Constraint: sql.IndexConstraint_Vector, Columns: []sql.IndexColumn{{Name: "a"}}}}); err == nil {
		t.Error("a VECTOR index was accepted")
	}
	if _, err := storageSchema(sql.NewPrimaryKeySchema(cols), nil); err == nil {
		t.Error("a POINT column was accepted")
	}
	if _, err := storageSchema(sql.NewPrimaryKeySchema(cols[:1]), sql.IndexDefs{{Name: "x", Columns: []sql.IndexColumn{{Name: "nope"}}}}); err == nil {
		t.Error("an index over a missing column was accepted")
	}
}

func mustParse(t *testing.T, typ string) sql.Type {
	t.Helper()
	ty, err := planbuilder.ParseColumnTypeString(sql.NewEmptyContext(), typ)
	if err != nil {
		t.Fatal(err)
	}
	return ty
}

func mustDefault(t *testing.T, ctx *sql.Context, text string, typ sql.Type, nullable bool) *sql.ColumnDefaultValue {
	return sql.NewUnresolvedColumnDefaultValue(text)
}
