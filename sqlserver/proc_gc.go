package sqlserver

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/internal/doltargs"
)

// dolt_gc: the garbage collection of the current database (verso's
// gc.go), online: other sessions go on reading and writing.
//
//	CALL dolt_gc()              collect: drop every chunk nothing reaches
//	CALL dolt_gc('--full')      the same (verso keeps one generation)
//	CALL dolt_gc('--shallow')   fold the journal into table files only
//
// It returns status 0, as Dolt's does. It needs the global SUPER
// privilege (1227 otherwise): it rewrites the whole store. The session's
// own transaction, with its savepoints, is kept and stays usable; the
// collection waits up to a minute for other sessions' transactions that
// began before it, and fails with 1205 if they stay open.

var gcProcedures = []sql.ExternalStoredProcedureDetails{
	{Name: "dolt_gc", Schema: statusSchema, Function: doltGC},
}

var gcSpec = procSpec("dolt_gc", doltargs.GC())

func doltGC(ctx *sql.Context, args ...string) (sql.RowIter, error) {
	a, err := gcSpec.parse(args)
	if err != nil {
		return nil, err
	}
	switch {
	case len(a.pos) > 0:
		return nil, fmt.Errorf("dolt_gc takes no positional arguments, but found %d: %s", len(a.pos), strings.Join(a.pos, ", "))
	case a.has("shallow") && a.has("full"):
		return nil, errors.New("dolt_gc: give --shallow or --full, not both")
	case a.has("archive-level"):
		return nil, errors.New("dolt_gc: verso writes no archive files, so --archive-level has no meaning here; leave it out")
	}
	if acc := sessionAccess(ctx); !acc.hasGlobal(ctx, []sql.PrivilegeType{sql.PrivilegeType_Super}) {
		return nil, errSpecificAccess("SUPER")
	}
	db, err := currentDatabase(ctx)
	if err != nil {
		return nil, err
	}
	opts := verso.GCOptions{Shallow: a.has("shallow")}
	if tx, ok := ctx.GetTransaction().(*Transaction); ok && tx != nil {
		// The session's own transaction is not waited for: what it
		// holds in this database, savepoints included, is kept.
		for k, d := range tx.dbs {
			if k.st != db.st {
				continue
			}
			if err := d.flushAll(ctx); err != nil {
				return nil, err
			}
			opts.Txns = append(opts.Txns, d.Txn)
			for _, sp := range tx.savepoints {
				if r, ok := sp.roots[k]; ok {
					opts.Pins = append(opts.Pins, r)
				}
			}
		}
	}
	_, err = db.st.db.GC(ctx, opts)
	switch {
	case errors.Is(err, verso.ErrGCWait):
		return nil, mysql.NewSQLError(mysql.ERLockWaitTimeout, "HY000", "dolt_gc: %s", strings.TrimPrefix(err.Error(), "verso: "))
	case err != nil:
		return nil, fmt.Errorf("dolt_gc: %w", err)
	}
	return statusRow(0), nil
}
