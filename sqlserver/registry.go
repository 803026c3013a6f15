package sqlserver

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
)

// The Dolt-compatible surface: stored procedures (CALL dolt_commit(...)),
// table functions (SELECT * FROM dolt_log('main')), scalar functions
// (active_branch()) and system tables (dolt_branches). Each feature file
// declares its entries in a static table (a package-level slice that
// nothing changes); the tables below gather them, and each Provider builds
// its own lookup maps from them (newCatalog). Nothing is registered in
// package state.

// procedures are the external stored procedures. Several may share a name
// with different parameter counts; they are tried in this order.
var procedures = slices.Concat(conflictProcedures, eventProcedures, branchProcedures, commitProcedures, cleanProcedures, droppedProcedures, mergeProcedures, verifyProcedures, gcProcedures, stashProcedures, remoteProcedures)

// tableFunctions are the table functions.
var tableFunctions = slices.Concat(eventTableFunctions, historyTableFunctions, []sql.TableFunction{&reflogFunc{}, &jsonDiffFunc{}})

// scalarFunctions are the scalar functions, beside those of builtStrings
// (builtStringFunctions), which wrap the engine's.
var scalarFunctions = slices.Concat(graphFunctions, regexpFunctions, fileFunctions)

// systemTables are the system-table openers, asked in this order before
// the database's own tables.
var systemTables = []SystemTableOpener{openSessionTables, openStoredSystemTable}

// SystemTableOpener returns the system table named name of db, or false
// when name is not one it serves.
type SystemTableOpener func(ctx *sql.Context, db *Database, name string) (sql.Table, bool, error)

// catalog is a provider's lookup of the tables above. It is built once per
// provider and not changed afterwards.
type catalog struct {
	procedures     map[string][]sql.ExternalStoredProcedureDetails // by lower-case name
	tableFunctions map[string]sql.TableFunction
	functions      map[string]sql.Function
	systemTables   []SystemTableOpener
}

// newCatalog builds the lookup maps of the static tables. Two entries of
// one name (other than procedures' signatures) break an invariant of the
// tables, and panic.
func newCatalog() *catalog {
	c := &catalog{
		procedures:     map[string][]sql.ExternalStoredProcedureDetails{},
		tableFunctions: map[string]sql.TableFunction{},
		functions:      map[string]sql.Function{},
		systemTables:   systemTables,
	}
	for _, p := range procedures {
		name := strings.ToLower(p.Name)
		p.Function = replicatingProcedure(p.Name, p.Function)
		c.procedures[name] = append(c.procedures[name], p)
	}
	for _, f := range tableFunctions {
		name := strings.ToLower(f.Name())
		if _, ok := c.tableFunctions[name]; ok {
			panic(fmt.Sprintf("sqlserver: two table functions named %s", name))
		}
		c.tableFunctions[name] = f
	}
	for _, f := range slices.Concat(scalarFunctions, builtStringFunctions()) {
		name := strings.ToLower(f.FunctionName())
		if _, ok := c.functions[name]; ok {
			panic(fmt.Sprintf("sqlserver: two functions named %s", name))
		}
		c.functions[name] = f
	}
	return c
}

// ProcedureRegistered reports whether verso has a procedure named name,
// and under how many signatures.
func ProcedureRegistered(name string) (int, bool) {
	n := 0
	for _, p := range procedures {
		if strings.EqualFold(p.Name, name) {
			n++
		}
	}
	return n, n > 0
}

// registeredSystemTable asks each system-table opener for name.
func (db *Database) registeredSystemTable(ctx *sql.Context, name string) (sql.Table, bool, error) {
	for _, o := range db.p.catalog.systemTables {
		if t, ok, err := o(ctx, db, name); err != nil || ok {
			return t, ok, err
		}
	}
	return nil, false, nil
}

// ExternalStoredProcedure implements sql.ExternalStoredProcedureProvider.
func (p *Provider) ExternalStoredProcedure(_ *sql.Context, name string, numOfParams int) (*sql.ExternalStoredProcedureDetails, error) {
	var variadic *sql.ExternalStoredProcedureDetails
	for _, d := range p.catalog.procedures[strings.ToLower(name)] {
		t := reflect.TypeOf(d.Function)
		if t == nil || t.Kind() != reflect.Func {
			continue
		}
		params := t.NumIn() - 1 // the first parameter is *sql.Context
		if t.IsVariadic() {
			// Too few arguments for the fixed parameters still find it:
			// the engine then says how many it expects, as Dolt's does.
			if variadic == nil {
				variadic = &d
			}
			continue
		}
		if params == numOfParams {
			return &d, nil
		}
	}
	return variadic, nil
}

// ExternalStoredProcedures implements sql.ExternalStoredProcedureProvider.
func (p *Provider) ExternalStoredProcedures(_ *sql.Context, name string) ([]sql.ExternalStoredProcedureDetails, error) {
	return slices.Clone(p.catalog.procedures[strings.ToLower(name)]), nil
}

// TableFunction implements sql.TableFunctionProvider: verso's, then those
// the engine added to this provider.
func (p *Provider) TableFunction(_ *sql.Context, name string) (sql.TableFunction, bool) {
	name = strings.ToLower(name)
	if f, ok := p.catalog.tableFunctions[name]; ok {
		return f, true
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	f, ok := p.tableFunctions[name]
	return f, ok
}

// WithTableFunctions implements sql.TableFunctionProvider. The engine calls
// it to add table functions of its own (its test suite does); they are
// added to this provider only, which is returned.
func (p *Provider) WithTableFunctions(fns ...sql.TableFunction) (sql.TableFunctionProvider, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tableFunctions == nil {
		p.tableFunctions = map[string]sql.TableFunction{}
	}
	for _, f := range fns {
		p.tableFunctions[strings.ToLower(f.Name())] = f
	}
	return p, nil
}

// Function implements sql.FunctionProvider.
func (p *Provider) Function(_ *sql.Context, _ string, name string) (sql.Function, bool) {
	f, ok := p.catalog.functions[strings.ToLower(name)]
	return f, ok
}
