package sqlserver

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/tablemerge"
)

// CALL dolt_conflicts_resolve('--ours' | '--theirs', <table>... | '.')
// resolves the conflicts that dolt_merge left in the transaction's working
// root (the tables dolt_conflicts and dolt_conflicts_<table> show them:
// package systables).

// conflictProcedures are the procedures of merge conflicts.
var conflictProcedures = []sql.ExternalStoredProcedureDetails{
	{Name: "dolt_conflicts_resolve", Schema: statusSchema, Function: doltConflictsResolve},
}

// errSchemaConflictsResolve is Dolt's refusal to resolve schema conflicts.
var errSchemaConflictsResolve = errors.New("Unable to automatically resolve schema conflicts since data changes may not have been fully merged yet. To continue, abort this merge (dolt merge --abort) then apply ALTER TABLE statements to one side of this merge to get the two schemas in sync with the desired schema, then rerun the merge. To track resolution of this limitation, follow https://github.com/dolthub/dolt/issues/6616")

var resolveSpec = optSpec{proc: "dolt_conflicts_resolve", opts: map[string]bool{"ours": false, "theirs": false}}

// doltConflictsResolve resolves every conflict of the named tables ('.'
// for all) with our rows (the table as it is) or theirs.
func doltConflictsResolve(ctx *sql.Context, args ...string) (sql.RowIter, error) {
	a, err := resolveSpec.parse(args)
	if err != nil {
		return nil, err
	}
	switch {
	case !a.has("ours") && !a.has("theirs"):
		return nil, errors.New("--ours or --theirs must be supplied")
	case len(a.pos) == 0:
		return nil, errors.New("specify at least one table to resolve conflicts")
	case a.has("ours") && a.has("theirs"):
		return nil, errors.New("specify only either --ours or --theirs")
	}
	side := tablemerge.Ours
	if a.has("theirs") {
		side = tablemerge.Theirs
	}
	db, err := currentDatabase(ctx)
	if err != nil {
		return nil, err
	}
	if db.rev != nil {
		return nil, fmt.Errorf("dolt_conflicts_resolve: database %s is a read-only revision", db.name)
	}
	d, err := db.tx(ctx)
	if err != nil {
		return nil, err
	}
	if err := d.flushAll(ctx); err != nil {
		return nil, err
	}
	// Schema conflicts cannot be resolved by picking a side, as Dolt
	// refuses them: the merge is aborted and run again.
	if schema, err := verso.SchemaConflictedTables(ctx, d.Root()); err != nil {
		return nil, err
	} else if len(schema) > 0 {
		return nil, errSchemaConflictsResolve
	}
	have, err := verso.ConflictedTables(ctx, d.Root())
	if err != nil {
		return nil, err
	}
	var names []string
	for _, n := range a.pos {
		if n == "." {
			names = append(names, have...)
			continue
		}
		found := ""
		for _, h := range have {
			if strings.EqualFold(h, n) {
				found = h
			}
		}
		if found == "" {
			// A table without conflicts has nothing to resolve, as Dolt
			// answers.
			if _, _, ok, err := verso.FindTable(ctx, d.Root(), n); err != nil {
				return nil, err
			} else if !ok {
				return nil, errors.New("table not found")
			}
			continue
		}
		names = append(names, found)
	}
	before := d.Root() // all the tables or none
	for _, n := range names {
		if err := d.ResolveConflicts(ctx, n, side); err != nil {
			d.SetRoot(before)
			return nil, fmt.Errorf("dolt_conflicts_resolve: %w", err)
		}
		delete(d.writers, strings.ToLower(n))
	}
	return statusRow(0), nil
}
