package sqlserver

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// Arguments of the Dolt procedures, which take command-line arguments as
// the dolt program does: CALL dolt_commit('-am', 'message').
//
// Short options may be combined ("-am"); the last of a group may take a
// value, from the rest of the group or the next argument. Long options
// take a value as "--opt=value" or "--opt value". "--" ends the options.

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

func (spec optSpec) usage() string {
	var names []string
	for n, v := range spec.opts {
		s := "--" + n
		for c, m := range spec.shorts {
			if m == n {
				s = "-" + string(c) + "/" + s
			}
		}
		if v {
			s += " <value>"
		}
		names = append(names, s)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func (spec optSpec) parse(args []string) (*procArgs, error) {
	a := &procArgs{set: map[string]bool{}, vals: map[string]string{}, afterDashes: -1}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--":
			a.afterDashes = len(a.pos)
			a.pos = append(a.pos, args[i+1:]...)
			return a, nil
		case strings.HasPrefix(arg, "--"):
			name, val, hasVal := strings.Cut(arg[2:], "=")
			takes, ok := spec.opts[name]
			if !ok {
				return nil, fmt.Errorf("%s: unknown option %q; the options are %s", spec.proc, arg, spec.usage())
			}
			if takes && !hasVal {
				if i+1 >= len(args) {
					return nil, fmt.Errorf("%s: option %q needs a value", spec.proc, arg)
				}
				i++
				val = args[i]
			} else if !takes && hasVal {
				return nil, fmt.Errorf("%s: option --%s takes no value", spec.proc, name)
			}
			a.set[name] = true
			a.vals[name] = val
		case strings.HasPrefix(arg, "-") && len(arg) > 1:
			for j := 1; j < len(arg); j++ {
				name, ok := spec.shorts[arg[j]]
				if !ok {
					return nil, fmt.Errorf("%s: unknown option \"-%c\" in %q; the options are %s", spec.proc, arg[j], arg, spec.usage())
				}
				a.set[name] = true
				if spec.opts[name] {
					val := arg[j+1:]
					if val == "" {
						if i+1 >= len(args) {
							return nil, fmt.Errorf("%s: option \"-%c\" needs a value", spec.proc, arg[j])
						}
						i++
						val = args[i]
					}
					a.vals[name] = val
					break
				}
			}
		default:
			a.pos = append(a.pos, arg)
		}
	}
	return a, nil
}

// Result schemas of the procedures, as Dolt's.
var (
	statusSchema = sql.Schema{{Name: "status", Type: types.Int64, Nullable: false}}
	hashSchema   = sql.Schema{{Name: "hash", Type: types.LongText, Nullable: true}}
)

func statusRow(status int64) sql.RowIter { return sql.RowsToRowIter(sql.Row{status}) }
