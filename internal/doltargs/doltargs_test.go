package doltargs

import (
	"slices"
	"strings"
	"testing"
	"time"
)

var commitSpec = Spec{
	Opts:   map[string]bool{"message": true, "all": false, "ALL": false, "amend": false, "date": true},
	Shorts: map[byte]string{'m': "message", 'a': "all", 'A': "ALL"},
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		args  []string
		set   []string
		msg   string
		pos   []string
		after int
	}{
		{args: []string{"-am", "fix"}, set: []string{"all", "message"}, msg: "fix", after: -1},
		{args: []string{"-Amfix"}, set: []string{"ALL", "message"}, msg: "fix", after: -1},
		{args: []string{"--message=a=b", "t1", "--amend"}, set: []string{"amend", "message"}, msg: "a=b", pos: []string{"t1"}, after: -1},
		{args: []string{"--message", "-x", "--", "-a", "t"}, set: []string{"message"}, msg: "-x", pos: []string{"-a", "t"}, after: 0},
		{args: []string{"ref", "--", "t"}, pos: []string{"ref", "t"}, after: 1},
		{args: []string{"-", "-m=x"}, set: []string{"message"}, msg: "x", after: -1},
		{args: []string{"--m", "x", "--amend=1"}, set: []string{"amend", "message"}, msg: "x", pos: []string{"=1"}, after: -1},
		{args: []string{"--ALLOW"}, set: []string{"ALL"}, pos: []string{"OW"}, after: -1},
		{args: []string{"-ax", "-m", "y"}, set: []string{"all", "message"}, msg: "y", pos: []string{"x"}, after: -1},
		{args: []string{"--message:x"}, set: []string{"message"}, msg: "x", after: -1},
		{args: []string{"--message=", "x"}, set: []string{"message"}, msg: "x", after: -1},
	} {
		a, err := commitSpec.Parse(c.args)
		if err != nil {
			t.Fatalf("%q: %v", c.args, err)
		}
		var set []string
		for n := range a.Set {
			set = append(set, n)
		}
		slices.Sort(set)
		if !slices.Equal(set, c.set) || a.Vals["message"] != c.msg || !slices.Equal(a.Pos, c.pos) || a.AfterDashes != c.after {
			t.Errorf("%q: set %v, message %q, pos %q, after %d; want %v, %q, %q, %d", c.args, set, a.Vals["message"], a.Pos, a.AfterDashes, c.set, c.msg, c.pos, c.after)
		}
		if a.Has("message") != (c.msg != "") {
			t.Errorf("%q: Has(message) is %v", c.args, a.Has("message"))
		}
	}
	for args, want := range map[string]string{
		"-x":              "error: unknown option `x'",
		"-xyz":            "error: unknown option `xyz'",
		"--messagex":      "error: unknown option `messagex'",
		"--mx":            "error: unknown option `mx'",
		"--nope=1":        "error: unknown option `nope=1'",
		"-m":              "error: no value for option `message'",
		"--message":       "error: no value for option `message'",
		"-m a --m b":      "error: multiple values provided for `message'",
		"--amend --amend": "error: multiple values provided for `amend'",
	} {
		_, err := commitSpec.Parse(strings.Fields(args))
		if err == nil || err.Error() != want {
			t.Errorf("%s: error %v, want %q", args, err, want)
		}
	}
}

func TestParseAuthorAndDate(t *testing.T) {
	for in, want := range map[string][2]string{
		"Ada Lovelace <ada@example.com>": {"Ada Lovelace", "ada@example.com"},
		"  Spaced   <  sp@example.com >": {"  Spaced  ", "  sp@example.com "},
		"Jane Doe <jane@example.com":     {"Jane Doe", "jane@example.com"},
		"Jane <>":                        {"Jane", ""},
		"A <b> <c>":                      {"A <b>", "c"},
	} {
		if n, e, err := ParseAuthor(in); err != nil || n != want[0] || e != want[1] {
			t.Errorf("ParseAuthor(%q) = %q %q %v; want %q %q", in, n, e, err, want[0], want[1])
		}
	}
	for in, want := range map[string]string{
		"ada@example.com":        "Author not formatted correctly. Use 'Name <author@example.com>' format",
		"Jane<jane@example.com>": "Author not formatted correctly. Use 'Name <author@example.com>' format",
		"":                       "Option 'author' requires a value",
	} {
		if _, _, err := ParseAuthor(in); err == nil || err.Error() != want {
			t.Errorf("ParseAuthor(%q): %v, want %q", in, err, want)
		}
	}
	if err := CheckAuthor(""); err == nil {
		t.Error("CheckAuthor took an empty email")
	}
	for s, want := range map[string]time.Time{
		"2026-11-30":                time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC),
		"2026.11.30":                time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC),
		"2026/11/30T10:05:00":       time.Date(2026, 11, 30, 10, 5, 0, 0, time.UTC),
		"2026-11-30T10:05:00.678Z":  time.Date(2026, 11, 30, 10, 5, 0, 678e6, time.UTC),
		"2026-11-30T10:05:00+01:00": time.Date(2026, 11, 30, 9, 5, 0, 0, time.UTC),
	} {
		if got, err := ParseDate(s); err != nil || !got.Equal(want) {
			t.Errorf("ParseDate(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"yesterday", "2026-11-30 10:05:00", "2026-13-45"} {
		if _, err := ParseDate(s); err == nil || err.Error() != "error: '"+s+"' is not in a supported format." {
			t.Errorf("ParseDate(%q): %v", s, err)
		}
	}
}

var logSpec = Spec{
	Opts:   map[string]bool{"not": true, "tables": true, "number": true, "parents": false},
	Shorts: map[byte]string{'t': "tables", 'n': "number"},
	Lists:  map[string]bool{"not": true, "tables": true},
	Ints:   map[string]bool{"number": true},
}

// TestParseListsAndInts pins list options (their value runs to the next
// argument that begins with "-") and integer options.
func TestParseListsAndInts(t *testing.T) {
	a, err := logSpec.Parse([]string{"main", "--not", "a", "b", "--parents", "-t", "x,y", "z", "-n", "-1"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.List("not"), []string{"a", "b"}) || !slices.Equal(a.List("tables"), []string{"x", "y", "z"}) ||
		!a.Has("parents") || a.Int("number", 0) != -1 || !slices.Equal(a.Pos, []string{"main"}) {
		t.Fatalf("parsed %+v", a)
	}
	if a.List("nope") != nil || a.Int("nope", 7) != 7 {
		t.Fatal("an option not given has a value")
	}
	a, err = logSpec.Parse([]string{"--tables=t,u", "-n2", "--not", "--parents"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.List("tables"), []string{"t", "u"}) || a.Int("number", 0) != 2 || !slices.Equal(a.List("not"), []string{""}) || !a.Has("parents") {
		t.Fatalf("parsed %+v", a)
	}
	for args, want := range map[string]string{
		"-n x":                  "error: \"x\" is not a valid int.",
		"--number=99999999999":  "error: \"99999999999\" is not a valid int.",
		"main --not":            "error: no value for option `not'",
		"--tables t --tables u": "error: multiple values provided for `tables'",
		"-n 1 --number 2":       "error: multiple values provided for `number'",
		"--tables":              "error: no value for option `tables'",
	} {
		_, err := logSpec.Parse(strings.Fields(args))
		if err == nil || err.Error() != want {
			t.Errorf("%s: error %v, want %q", args, err, want)
		}
	}
}
