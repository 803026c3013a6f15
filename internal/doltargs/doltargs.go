// Package doltargs parses the arguments of Dolt's versioning commands, as
// both the SQL procedures (CALL dolt_commit('-am', 'message'), package
// sqlserver) and the command line (verso commit -am message) take them:
//
//   - Short options may be combined ("-am"); the last of a group may take a
//     value, from the rest of the group or the next argument.
//   - Long options take a value as "--opt=value" or "--opt value".
//   - "--" ends the options; the arguments after it are positional.
//
// It also reads the two values the commands share: an author ("Name
// <email>") and a commit date. Errors name no command: the caller puts its
// own name before them.
package doltargs

import (
	"fmt"
	"net/mail"
	"sort"
	"strings"
	"time"
)

// Spec describes a command's options: Opts maps each option's canonical
// (long) name to whether it takes a value; Shorts maps one-letter names to
// canonical ones.
type Spec struct {
	Opts   map[string]bool
	Shorts map[byte]string
}

// Args is a parsed argument list.
type Args struct {
	Set  map[string]bool   // the options given, by canonical name
	Vals map[string]string // their values
	Pos  []string          // the positional arguments, in order
	// AfterDashes is the number of positional arguments given before
	// "--", or -1 if there was none.
	AfterDashes int
}

// Has reports whether the option opt (a canonical name) was given.
func (a *Args) Has(opt string) bool { return a.Set[opt] }

// Usage lists the options of spec, as an error message ends.
func (spec Spec) Usage() string {
	var names []string
	for n, v := range spec.Opts {
		s := "--" + n
		for c, m := range spec.Shorts {
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

// Parse parses args against spec.
func (spec Spec) Parse(args []string) (*Args, error) {
	a := &Args{Set: map[string]bool{}, Vals: map[string]string{}, AfterDashes: -1}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--":
			a.AfterDashes = len(a.Pos)
			a.Pos = append(a.Pos, args[i+1:]...)
			return a, nil
		case strings.HasPrefix(arg, "--"):
			name, val, hasVal := strings.Cut(arg[2:], "=")
			takes, ok := spec.Opts[name]
			if !ok {
				return nil, fmt.Errorf("unknown option %q; the options are %s", arg, spec.Usage())
			}
			if takes && !hasVal {
				if i+1 >= len(args) {
					return nil, fmt.Errorf("option %q needs a value", arg)
				}
				i++
				val = args[i]
			} else if !takes && hasVal {
				return nil, fmt.Errorf("option --%s takes no value", name)
			}
			a.Set[name] = true
			a.Vals[name] = val
		case strings.HasPrefix(arg, "-") && len(arg) > 1:
			for j := 1; j < len(arg); j++ {
				name, ok := spec.Shorts[arg[j]]
				if !ok {
					return nil, fmt.Errorf("unknown option \"-%c\" in %q; the options are %s", arg[j], arg, spec.Usage())
				}
				a.Set[name] = true
				if spec.Opts[name] {
					val := arg[j+1:]
					if val == "" {
						if i+1 >= len(args) {
							return nil, fmt.Errorf("option \"-%c\" needs a value", arg[j])
						}
						i++
						val = args[i]
					}
					a.Vals[name] = val
					break
				}
			}
		default:
			a.Pos = append(a.Pos, arg)
		}
	}
	return a, nil
}

// ParseAuthor parses "Name <email>".
func ParseAuthor(s string) (name, email string, err error) {
	addr, err := mail.ParseAddress(s)
	if err != nil || addr.Name == "" {
		return "", "", fmt.Errorf("author %q is not of the form 'Name <email>'", s)
	}
	return addr.Name, addr.Address, nil
}

// ParseDate parses a commit date (--date); a time without a zone is UTC.
func ParseDate(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, l := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05.999999999", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.Parse(l, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("cannot read the date %q; write it as 2006-01-02T15:04:05Z07:00, '2006-01-02 15:04:05' (UTC) or 2006-01-02", s)
}
