package sqlserver

import (
	"errors"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso/internal/doltargs"
)

// Arguments of the Dolt procedures, which take command-line arguments as
// the dolt program does (CALL dolt_commit('-am', 'message')), parsed by
// package doltargs as the command line's are.

// optSpec describes a procedure's options: canonical name (the long name)
// -> whether it takes a value; short names map to canonical ones.
type optSpec struct {
	proc   string
	opts   map[string]bool
	shorts map[byte]string
}

// procArgs is a parsed argument list.
type procArgs struct {
	set  map[string]bool
	vals map[string]string
	pos  []string
	// afterDashes is the number of positional arguments given before "--",
	// or -1 if there was none.
	afterDashes int
}

func (a *procArgs) has(opt string) bool { return a.set[opt] }

// procSpec returns the optSpec of proc with the options of s.
func procSpec(proc string, s doltargs.Spec) optSpec {
	return optSpec{proc: proc, opts: s.Opts, shorts: s.Shorts}
}

func (spec optSpec) parse(args []string) (*procArgs, error) {
	// --help asks Dolt's procedures for their help, which they refuse.
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "--help" {
			return nil, errors.New("Help")
		}
	}
	// The parser's errors are Dolt's, which name no procedure.
	a, err := doltargs.Spec{Opts: spec.opts, Shorts: spec.shorts}.Parse(args)
	if err != nil {
		return nil, err
	}
	return &procArgs{set: a.Set, vals: a.Vals, pos: a.Pos, afterDashes: a.AfterDashes}, nil
}

// Result schemas of the procedures, as Dolt's.
var (
	statusSchema = sql.Schema{{Name: "status", Type: types.Int64, Nullable: false}}
	hashSchema   = sql.Schema{{Name: "hash", Type: types.LongText, Nullable: true}}
)

func statusRow(status int64) sql.RowIter { return sql.RowsToRowIter(sql.Row{status}) }
