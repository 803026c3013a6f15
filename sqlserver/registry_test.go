package sqlserver

import (
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
)

// with returns a copy of c with functions and procedures added, for tests
// that bring their own. Set it on a provider before the provider serves:
// a catalog is not changed while in use.
func (c *catalog) with(fns []sql.Function, procs []sql.ExternalStoredProcedureDetails) *catalog {
	out := &catalog{
		procedures:     map[string][]sql.ExternalStoredProcedureDetails{},
		tableFunctions: c.tableFunctions,
		functions:      map[string]sql.Function{},
		systemTables:   c.systemTables,
	}
	for k, v := range c.procedures {
		out.procedures[k] = v
	}
	for k, v := range c.functions {
		out.functions[k] = v
	}
	for _, p := range procs {
		name := strings.ToLower(p.Name)
		out.procedures[name] = append(append([]sql.ExternalStoredProcedureDetails(nil), out.procedures[name]...), p)
	}
	for _, f := range fns {
		out.functions[strings.ToLower(f.FunctionName())] = f
	}
	return out
}

// TestCatalog: every provider builds its lookup from the static tables,
// with the Dolt surface there (procedures by every signature), and what one
// provider is given is not another's.
func TestCatalog(t *testing.T) {
	a, b := NewMemoryProvider(), NewMemoryProvider()
	defer a.Close()
	defer b.Close()
	ctx := sql.NewEmptyContext()
	for _, name := range []string{"dolt_commit", "DOLT_MERGE", "dolt_conflicts_resolve", "dolt_append_events"} {
		if d, err := a.ExternalStoredProcedures(ctx, name); err != nil || len(d) != 1 {
			t.Errorf("procedure %s: %d signatures, %v", name, len(d), err)
		}
	}
	if n, ok := ProcedureRegistered("dolt_delete_stream"); !ok || n != 2 {
		t.Errorf("dolt_delete_stream: %d signatures", n)
	}
	if _, ok := ProcedureRegistered("no_such_procedure"); ok {
		t.Error("an unknown procedure is registered")
	}
	fns := []string{"active_branch", "hashof", "load_file", "repeat", "space"}
	if icuRegexps {
		fns = append(fns, "regexp_like")
	}
	for _, name := range fns {
		if _, ok := a.Function(ctx, "", name); !ok {
			t.Errorf("no function %s", name)
		}
	}
	for _, name := range []string{"dolt_log", "dolt_diff", "dolt_read_all", "dolt_read_stream"} {
		if _, ok := a.TableFunction(ctx, name); !ok {
			t.Errorf("no table function %s", name)
		}
	}
	if len(a.catalog.systemTables) != len(systemTables) {
		t.Errorf("%d system-table openers, want %d", len(a.catalog.systemTables), len(systemTables))
	}
	a.catalog = a.catalog.with([]sql.Function{sql.Function0{Name: "verso_test_one", Fn: func(*sql.Context) sql.Expression { return nil }}},
		[]sql.ExternalStoredProcedureDetails{{Name: "verso_test_proc", Schema: statusSchema, Function: func(*sql.Context) (sql.RowIter, error) { return nil, nil }}})
	if _, ok := a.Function(ctx, "", "verso_test_one"); !ok {
		t.Error("the added function is missing")
	}
	if _, ok := b.Function(ctx, "", "verso_test_one"); ok {
		t.Error("another provider's function is in this one")
	}
	if d, _ := b.ExternalStoredProcedures(ctx, "verso_test_proc"); len(d) != 0 {
		t.Error("another provider's procedure is in this one")
	}
	if _, ok := ProcedureRegistered("verso_test_proc"); ok {
		t.Error("a provider's procedure is in the static table")
	}
	if _, ok := b.Function(ctx, "", "hashof"); !ok {
		t.Error("the other provider lost hashof")
	}
}
