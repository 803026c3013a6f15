package systables_test

import (
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso/systables"
)

// TestEventsAtRoot reads the event tables of an older root value
// (OpenEventsAt): they show that root's log and refuse writes.
func TestEventsAtRoot(t *testing.T) {
	en := newEnv(t)
	ctx := en.session("d")
	en.exec(ctx, `CALL dolt_append_events('A-1', 'any', '[{"event_type": "A"}, {"event_type": "B"}]')`)
	v, err := en.p.SystemView(en.session("d"), "d")
	if err != nil {
		t.Fatal(err)
	}
	old := v.Working
	en.exec(ctx, `CALL dolt_append_events('A-1', 'any', '[{"event_type": "C"}]')`)
	read := func(name string) []string {
		tbl, ok := systables.OpenEventsAt(name, v, old)
		if !ok {
			t.Fatalf("no table %s", name)
		}
		return formatRows(tableRows(t, ctx, tbl))
	}
	if got := strings.Join(read("dolt_events"), "\n"); !strings.Contains(got, "|A-1|1|") || strings.Contains(got, "|A-1|2|") {
		t.Errorf("dolt_events at the old root:\n%s", got)
	}
	if got := read("dolt_streams"); len(got) != 1 || !strings.HasPrefix(got[0], "A-1|A|2|0|1|1|") {
		t.Errorf("dolt_streams at the old root: %q", got)
	}
	if _, ok := systables.OpenEventsAt("dolt_branches", v, old); ok {
		t.Error("dolt_branches is no event table")
	}
	tbl, _ := systables.OpenEventsAt("DOLT_EVENTS", v, old)
	ins := tbl.(sql.InsertableTable).Inserter(ctx)
	if err := ins.Insert(ctx, sql.Row{nil, "A-1", nil, nil, "D", nil, nil, nil, nil}); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("insert at an old root: %v", err)
	}
	if got := formatRows(en.exec(ctx, "SELECT count(*) FROM dolt_events")); len(got) != 1 || got[0] != "3" {
		t.Errorf("count(*): %v", got)
	}
}
