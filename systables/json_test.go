package systables_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso/systables"
)

// TestJSONValue checks the engine's JSON functions over event data read
// as systables.JSON values: two paths into one value, a JSON_SET that
// must leave the stored document as it was, and the text a client gets.
func TestJSONValue(t *testing.T) {
	en := newEnv(t)
	ctx := en.session("d")
	en.exec(ctx, `CALL dolt_append_events('J-1', 'any', '[{"event_type": "A", "data": {"a": 1, "b": {"c": "x"}}, "metadata": {"m": true}}, {"event_type": "A"}]')`)
	rows := en.exec(ctx, `SELECT JSON_EXTRACT(data, '$.a'), JSON_EXTRACT(data, '$.b.c'), JSON_SET(data, '$.a', 2), JSON_EXTRACT(data, '$.a'), data, metadata FROM dolt_read_stream('J-1', 0, 10)`)
	got := formatRows(rows)
	want := []string{
		`1|"x"|{"a": 2, "b": {"c": "x"}}|1|{"a": 1, "b": {"c": "x"}}|{"m": true}`,
		`NULL|NULL|NULL|NULL|NULL|NULL`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	v := systables.JSON([]byte(`{"k":[1,2]}`))
	if b, err := v.(types.JSONBytes).GetBytes(context.Background()); err != nil || string(b) != `{"k":[1,2]}` {
		t.Errorf("GetBytes: %q, %v", b, err)
	}
	if s := fmt.Sprint(v); s != `{"k": [1, 2]}` {
		t.Errorf("String: %q", s)
	}
	c := v.Clone(context.Background())
	i1, _ := v.ToInterface(context.Background())
	i2, _ := c.ToInterface(context.Background())
	i1.(map[string]any)["k"] = "changed"
	if fmt.Sprint(i2) != "map[k:[1 2]]" {
		t.Errorf("a clone shares its structure with the original: %v", i2)
	}
	if _, err := systables.JSON([]byte(`{`)).ToInterface(context.Background()); err == nil {
		t.Error("ToInterface of invalid JSON: no error")
	}
}

// TestEventRowsApart reads more events than one slab of rows holds
// straight from dolt_events' row iterator (no projection above it to copy
// the rows) and checks every row stands alone: extending every row leaves
// the others as they were.
func TestEventRowsApart(t *testing.T) {
	en := newEnv(t)
	ctx := en.session("d")
	var b strings.Builder
	b.WriteString("[")
	for i := range 300 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"event_type": "T%d", "data": {"i": %d}}`, i%3, i)
	}
	b.WriteString("]")
	en.exec(ctx, `CALL dolt_append_events('S-1', 'any', '`+b.String()+`')`)
	en.exec(ctx, `CALL dolt_append_events('R-1', 'any', '[{"event_type": "T0"}]')`)
	v, err := en.p.SystemView(en.session("d"), "d")
	if err != nil {
		t.Fatal(err)
	}
	tbl, ok := systables.OpenEventsAt("dolt_events", v, v.Working)
	if !ok {
		t.Fatal("no dolt_events")
	}
	rows := tableRows(t, ctx, tbl)
	if len(rows) != 301 {
		t.Fatalf("%d rows, want 301", len(rows))
	}
	for _, r := range rows {
		_ = append(r, "extra")
	}
	for n, r := range rows[:300] {
		if len(r) != 9 || r[0] != uint64(n+1) || r[1] != "S-1" || r[2] != uint64(n) || r[4] != fmt.Sprintf("T%d", n%3) || r[5] != "S" {
			t.Fatalf("row of event %d: %v", n, r)
		}
		if got := fmt.Sprint(r[7]); got != fmt.Sprintf(`{"i": %d}`, n) {
			t.Fatalf("data of event %d: %s", n, got)
		}
	}
	if r := rows[300]; r[1] != "R-1" || r[5] != "R" || r[7] != nil {
		t.Fatalf("last row: %v", r)
	}
}
