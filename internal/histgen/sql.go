package histgen

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tables"
)

// ErrNoSQL is returned by SQL for an op it cannot replay.
var ErrNoSQL = errors.New("histgen: no SQL for this op")

// SQL renders ops as statements that make the same history on a SQL server
// with Dolt's version-control procedures, one slice per op, to be run in
// order from one session on main, in a database without t:
//
//	OpBranch        CALL dolt_branch(name, from)
//	OpDeleteBranch  CALL dolt_branch('-D', name)
//	OpCommit        CALL dolt_checkout(branch) if the session is on another
//	                branch; then in one transaction (one write of the
//	                working set instead of one per statement) CREATE TABLE
//	                t if Create, ALTER TABLE t ADD COLUMN extra if
//	                AddColumn, REPLACE INTO t or DELETE FROM t for each
//	                change, CALL dolt_commit('-Am', message, '--allow-empty',
//	                '--author', ..., '--date', ...)
//	OpMerge         the same, with CALL dolt_merge('--no-ff', '--no-commit',
//	                theirs) and CALL dolt_conflicts_resolve('--theirs', 't')
//	                first in the transaction (whose conflicts are so
//	                resolved before it commits)
//
// A merge's changes are the rows theirs changed since the merge base, as
// theirs has them: written over whatever the server's merge made of them
// (a cell-wise merge, or a conflict), they leave t as Build's merge left
// it, whose rows of every other key are ours'. Each commit's t so holds
// the rows of the same commit of History.Commits. The commits differ in
// their committer (the session's user) and so in their hashes.
//
// SQL fails with ErrNoSQL on a branch started at a commit rather than a
// branch head (Options.Random), a merge of several branches
// (Options.Octopus) and a change to the events/ entry (Options.EventsEvery).
func SQL(ops []Op) ([][]string, error) {
	cur := "main"
	checkout := func(b string) []string {
		if b == cur {
			return nil
		}
		cur = b
		return []string{call("dolt_checkout", b)}
	}
	out := make([][]string, 0, len(ops))
	for i, op := range ops {
		var st []string
		switch op.Kind {
		case OpBranch:
			if op.From == "" {
				return nil, fmt.Errorf("%w: op %d starts branch %s at a commit", ErrNoSQL, i, op.Branch)
			}
			st = append(st, call("dolt_branch", op.Branch, op.From))
		case OpDeleteBranch:
			if cur == op.Branch {
				st = append(st, checkout("main")...)
			}
			st = append(st, call("dolt_branch", "-D", op.Branch))
		case OpCommit, OpMerge:
			if op.Events {
				return nil, fmt.Errorf("%w: op %d changes the events/ entry", ErrNoSQL, i)
			}
			st = append(st, checkout(op.Branch)...)
			st = append(st, "START TRANSACTION")
			if op.Kind == OpMerge {
				if len(op.Theirs) != 1 {
					return nil, fmt.Errorf("%w: op %d merges %d branches", ErrNoSQL, i, len(op.Theirs))
				}
				st = append(st,
					call("dolt_merge", "--no-ff", "--no-commit", op.Theirs[0]),
					call("dolt_conflicts_resolve", "--theirs", Table))
			}
			if op.Create {
				st = append(st, createTable(Schema(false)))
			}
			if op.AddColumn {
				st = append(st, "ALTER TABLE "+Table+" ADD COLUMN extra bigint")
			}
			for _, c := range op.Changes {
				s, err := changeSQL(c)
				if err != nil {
					return nil, fmt.Errorf("op %d: %w", i, err)
				}
				st = append(st, s)
			}
			a := op.Meta.Author
			st = append(st, call("dolt_commit", "-Am", op.Meta.Message, "--allow-empty",
				"--author", a.Name+" <"+a.Email+">", "--date", op.Meta.Time.UTC().Format(time.RFC3339Nano)))
			st = append(st, "COMMIT")
		default:
			return nil, fmt.Errorf("histgen: op %d has no kind", i)
		}
		out = append(out, st)
	}
	return out, nil
}

// call renders a CALL of proc with string arguments.
func call(proc string, args ...string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = quote(a)
	}
	return "CALL " + proc + "(" + strings.Join(q, ", ") + ")"
}

// quote renders s as a SQL string literal.
func quote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `''`).Replace(s) + "'"
}

func createTable(s *tables.Schema) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE " + Table + " (")
	for _, c := range s.Columns {
		b.WriteString(c.Name + " " + c.Type)
		if !c.Nullable {
			b.WriteString(" NOT NULL")
		}
		b.WriteString(", ")
	}
	pk := make([]string, len(s.PrimaryKey))
	for i, c := range s.PrimaryKey {
		pk[i] = s.Columns[c].Name
	}
	b.WriteString("PRIMARY KEY (" + strings.Join(pk, ", ") + "))")
	return b.String()
}

// changeSQL renders a change to t (keyed by its first column, pk).
func changeSQL(c Change) (string, error) {
	if c.Delete {
		pk, err := literal(c.Row[0])
		return "DELETE FROM " + Table + " WHERE pk = " + pk, err
	}
	vals := make([]string, len(c.Row))
	for i, v := range c.Row {
		var err error
		if vals[i], err = literal(v); err != nil {
			return "", err
		}
	}
	return "REPLACE INTO " + Table + " VALUES (" + strings.Join(vals, ", ") + ")", nil
}

// literal renders a value of one of the kinds t's columns hold.
func literal(v tables.Value) (string, error) {
	switch v.Kind() {
	case prolly.KindNull:
		return "NULL", nil
	case prolly.KindInt:
		return strconv.FormatInt(v.AsInt(), 10), nil
	case prolly.KindFloat64:
		return strconv.FormatFloat(v.AsFloat64(), 'g', -1, 64), nil
	case prolly.KindString:
		return quote(v.AsString()), nil
	}
	return "", fmt.Errorf("%w: a value of kind %s", ErrNoSQL, v.Kind())
}
