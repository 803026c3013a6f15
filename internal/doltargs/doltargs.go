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
	"regexp"
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
//     with its value joined after "=", ":" or a space ("--message=x"): the
//     longest name that begins the argument is the option. Joined without
//     one ("--messagex", "--bogus" where -b takes a value), the whole is
//     an unknown option. The rest of an option that takes no value is a
//     positional argument ("--allow-empty=true" gives "=true").
//   - A group that begins with an unknown short option is unknown as a
//     whole ("-bad"); after known options, the rest of the group is a
//     positional argument ("-fx" is -f and "x").
//   - A short option's joined value drops a leading "=" ("-m=x").
//   - A lone "-" is dropped, and a long option may have more dashes.
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
			bare := strings.TrimLeft(arg, "-") // "---m" is "--m"
			name, rest, ok := spec.longest(bare)
			if !ok {
				return nil, fmt.Errorf("error: unknown option `%s'", bare)
			}
			val := ""
			switch {
			case !spec.Opts[name]:
				if rest != "" {
					a.Pos = append(a.Pos, rest)
				}
			case rest != "" && !strings.ContainsAny(rest[:1], valueSeparators):
				return nil, fmt.Errorf("error: unknown option `%s'", arg[2:])
			case strings.TrimLeft(rest, valueSeparators) != "":
				val = strings.TrimLeft(rest, valueSeparators)
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
				if !ok && j > 1 {
					a.Pos = append(a.Pos, arg[j:])
					break
				}
				if !ok {
					return nil, fmt.Errorf("error: unknown option `%s'", arg[1:])
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

// valueSeparators may join a long option and its value.
const valueSeparators = " =:"

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

// authorForm is Dolt's reading of an author: the text up to the last
// " <" is the name, the rest (without any ">") the email.
var authorForm = regexp.MustCompile(`(?m)([^)]+) \<([^)]+)`)

// ParseAuthor parses "Name <email>" as Dolt does: spaces are kept, the
// closing ">" is optional, and a name must be followed by " <". The
// email may come out empty (CheckAuthor refuses that).
func ParseAuthor(s string) (name, email string, err error) {
	if s == "" {
		return "", "", errors.New("Option 'author' requires a value")
	}
	m := authorForm.FindStringSubmatch(s)
	if m == nil {
		return "", "", errors.New("Author not formatted correctly. Use 'Name <author@example.com>' format")
	}
	return m[1], strings.ReplaceAll(m[2], ">", ""), nil
}

// CheckAuthor refuses an author without an email ("Jane <>"), in Dolt's
// words; ParseAuthor gives no author without a name.
func CheckAuthor(email string) error {
	if email == "" {
		return errors.New("Aborting commit due to empty author email. Is your config set?")
	}
	return nil
}

// dateLayouts are the forms of a commit date Dolt reads; a date without a
// zone is UTC. Fractions of a second may follow the seconds.
var dateLayouts = []string{
	"2006/01/02", "2006/01/02T15:04:05", "2006/01/02T15:04:05Z07:00",
	"2006.01.02", "2006.01.02T15:04:05", "2006.01.02T15:04:05Z07:00",
	"2006-01-02", "2006-01-02T15:04:05", "2006-01-02T15:04:05Z07:00",
}

// ParseDate parses a commit date (--date) in one of Dolt's forms.
func ParseDate(s string) (time.Time, error) {
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("error: '%s' is not in a supported format.", s)
}
