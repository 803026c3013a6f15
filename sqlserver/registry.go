package sqlserver

import (
	"reflect"
	"strings"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
)

// Extension points for the Dolt-compatible surface: stored procedures
// (CALL dolt_commit(...)), table functions (SELECT * FROM dolt_log('main')),
// scalar functions (active_branch()) and system tables (dolt_branches). Each
// feature file registers its own entries from an init function, so features
// live in separate files and the Provider below serves them all.

var registry struct {
	sync.RWMutex
	procedures     map[string][]sql.ExternalStoredProcedureDetails
	tableFunctions map[string]sql.TableFunction
	functions      map[string]sql.Function
	systemTables   []SystemTableOpener
}

// SystemTableOpener returns the system table named name of db, or false
// when name is not one it serves. Openers are asked in registration order,
// before the database's own tables.
type SystemTableOpener func(ctx *sql.Context, db *Database, name string) (sql.Table, bool, error)

// registerProcedure adds an external stored procedure. Several procedures
// may share a name with different parameter counts.
func registerProcedure(p sql.ExternalStoredProcedureDetails) {
	registry.Lock()
	defer registry.Unlock()
	if registry.procedures == nil {
		registry.procedures = map[string][]sql.ExternalStoredProcedureDetails{}
	}
	name := strings.ToLower(p.Name)
	registry.procedures[name] = append(registry.procedures[name], p)
}

// registerTableFunction adds a table function under its Name().
func registerTableFunction(f sql.TableFunction) {
	registry.Lock()
	defer registry.Unlock()
	if registry.tableFunctions == nil {
		registry.tableFunctions = map[string]sql.TableFunction{}
	}
	registry.tableFunctions[strings.ToLower(f.Name())] = f
}

// registerFunction adds a scalar function under its FunctionName().
func registerFunction(f sql.Function) {
	registry.Lock()
	defer registry.Unlock()
	if registry.functions == nil {
		registry.functions = map[string]sql.Function{}
	}
	registry.functions[strings.ToLower(f.FunctionName())] = f
}

// registerSystemTables adds a system-table opener.
func registerSystemTables(o SystemTableOpener) {
	registry.Lock()
	defer registry.Unlock()
	registry.systemTables = append(registry.systemTables, o)
}

// registeredSystemTable asks each registered opener for name.
func (db *Database) registeredSystemTable(ctx *sql.Context, name string) (sql.Table, bool, error) {
	registry.RLock()
	openers := registry.systemTables
	registry.RUnlock()
	for _, o := range openers {
		if t, ok, err := o(ctx, db, name); err != nil || ok {
			return t, ok, err
		}
	}
	return nil, false, nil
}

// ExternalStoredProcedure implements sql.ExternalStoredProcedureProvider.
func (p *Provider) ExternalStoredProcedure(_ *sql.Context, name string, numOfParams int) (*sql.ExternalStoredProcedureDetails, error) {
	registry.RLock()
	defer registry.RUnlock()
	var variadic *sql.ExternalStoredProcedureDetails
	for i := range registry.procedures[strings.ToLower(name)] {
		d := registry.procedures[strings.ToLower(name)][i]
		t := reflect.TypeOf(d.Function)
		if t == nil || t.Kind() != reflect.Func {
			continue
		}
		params := t.NumIn() - 1 // the first parameter is *sql.Context
		if t.IsVariadic() {
			if numOfParams >= params-1 && variadic == nil {
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
	registry.RLock()
	defer registry.RUnlock()
	return append([]sql.ExternalStoredProcedureDetails(nil), registry.procedures[strings.ToLower(name)]...), nil
}

// TableFunction implements sql.TableFunctionProvider: the registry's, then
// those the engine added to this provider.
func (p *Provider) TableFunction(_ *sql.Context, name string) (sql.TableFunction, bool) {
	name = strings.ToLower(name)
	registry.RLock()
	f, ok := registry.tableFunctions[name]
	registry.RUnlock()
	if ok {
		return f, true
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	f, ok = p.tableFunctions[name]
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
	registry.RLock()
	defer registry.RUnlock()
	f, ok := registry.functions[strings.ToLower(name)]
	return f, ok
}
