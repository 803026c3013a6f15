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
// <email>") and a commit date. Errors are worded as Dolt's.
package doltargs

import (
	"errors"
	"fmt"
	"net/mail"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Spec describes a command's options: Opts maps each option's canonical
// (long) name to whether it takes a value; Shorts maps one-letter names to
// canonical ones. Lists and Ints name options of Opts that take a value of
// a kind:
//
//   - A list option given with its value as the next argument takes every
//     argument up to the next one that begins with "-", joined by ","
//     (dolt_log('--not', 'a', 'b') excludes a and b); Args.List splits it.
//   - An integer option refuses a value that is not a 32-bit integer.
type Spec struct {
	Opts   map[string]bool
	Shorts map[byte]string
	Lists  map[string]bool
	Ints   map[string]bool
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

// List returns the values of the list option opt, split at ","; nil if it
// was not given.
func (a *Args) List(opt string) []string {
	if !a.Set[opt] {
		return nil
	}
	return strings.Split(a.Vals[opt], ",")
}

// Int returns the value of the integer option opt, or def if it was not
// given.
func (a *Args) Int(opt string, def int) int {
	if !a.Set[opt] {
		return def
	}
	n, _ := strconv.Atoi(a.Vals[opt]) // Parse checked it
	return n
}

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

// Parse parses args against spec, as Dolt's argument parser does, errors
// and quirks included:
//
//   - A long option may also be written with its short name ("--m"), and
//     with its value joined ("--message=x", "--messagex"): the longest
//     name that begins the argument is the option, and the rest is its
//     value. The rest of an option that takes no value is a positional
//     argument ("--allow-empty=true" gives "=true").
//   - A short option's joined value drops a leading "=" ("-m=x").
//   - A lone "-" is dropped.
//   - An option given twice is refused.
//   - A list option followed by an argument that begins with "-" has the
//     empty value, and that argument is read as an option.
func (spec Spec) Parse(args []string) (*Args, error) {
	a := &Args{Set: map[string]bool{}, Vals: map[string]string{}, AfterDashes: -1}
	set := func(name, val string) error {
		if a.Set[name] {
			return fmt.Errorf("error: multiple values provided for `%s'", name)
		}
		if spec.Ints[name] {
			if _, err := strconv.ParseInt(val, 10, 32); err != nil {
				return fmt.Errorf("error: %q is not a valid int.", val)
			}
		}
		a.Set[name] = true
		a.Vals[name] = val
		return nil
	}
	// next takes the value of the option name from the arguments after
	// the i-th, and returns the index of the last one it took.
	next := func(name string, i int) (string, int, error) {
		if i+1 >= len(args) {
			return "", i, fmt.Errorf("error: no value for option `%s'", name)
		}
		if !spec.Lists[name] {
			return args[i+1], i + 1, nil
		}
		j := i + 1
		for j < len(args) && !strings.HasPrefix(args[j], "-") {
			j++
		}
		return strings.Join(args[i+1:j], ","), j - 1, nil
	}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--":
			a.AfterDashes = len(a.Pos)
			a.Pos = append(a.Pos, args[i+1:]...)
			return a, nil
		case arg == "-":
		case strings.HasPrefix(arg, "--"):
			name, rest, ok := spec.longest(arg[2:])
			if !ok {
				return nil, fmt.Errorf("error: unknown option `%s'", arg[2:])
			}
			val := ""
			switch {
			case !spec.Opts[name]:
				if rest != "" {
					a.Pos = append(a.Pos, rest)
				}
			case rest != "":
				val = strings.TrimPrefix(rest, "=")
			default:
				var err error
				if val, i, err = next(name, i); err != nil {
					return nil, err
				}
			}
			if err := set(name, val); err != nil {
				return nil, err
			}
		case strings.HasPrefix(arg, "-"):
			for j := 1; j < len(arg); j++ {
				name, ok := spec.Shorts[arg[j]]
				if !ok {
					return nil, fmt.Errorf("error: unknown option `%c'", arg[j])
				}
				val := ""
				if spec.Opts[name] {
					val = strings.TrimPrefix(arg[j+1:], "=")
					if j+1 == len(arg) {
						var err error
						if val, i, err = next(name, i); err != nil {
							return nil, err
						}
					}
					j = len(arg)
				}
				if err := set(name, val); err != nil {
					return nil, err
				}
			}
		default:
			a.Pos = append(a.Pos, arg)
		}
	}
	return a, nil
}

// longest returns the option whose long or short name is the longest
// that begins s, with the rest of s.
func (spec Spec) longest(s string) (name, rest string, ok bool) {
	best := -1
	try := func(n, canonical string) {
		if strings.HasPrefix(s, n) && len(n) > best {
			best, name = len(n), canonical
		}
	}
	for n := range spec.Opts {
		try(n, n)
	}
	for c, n := range spec.Shorts {
		try(string(c), n)
	}
	if best < 0 {
		return "", "", false
	}
	return name, s[best:], true
}

// ParseAuthor parses "Name <email>".
func ParseAuthor(s string) (name, email string, err error) {
	addr, err := mail.ParseAddress(s)
	if err != nil || addr.Name == "" {
		return "", "", errors.New("Author not formatted correctly. Use 'Name <author@example.com>' format")
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
	return time.Time{}, fmt.Errorf("error: '%s' is not in a supported format.", s)
}
