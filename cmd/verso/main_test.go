package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"version"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
	if !strings.HasPrefix(out.String(), "verso ") || !strings.Contains(out.String(), "storage format 1") {
		t.Fatalf("unexpected output %q", out.String())
	}
}

func TestUnknownCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"frobnicate"}, &out, &errOut); code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
	if !strings.Contains(errOut.String(), `unknown command "frobnicate"`) {
		t.Fatalf("stderr %q does not name the command", errOut.String())
	}
}

// runCode runs the command line and returns its exit code, stdout and
// stderr.
func runCode(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestHelp: verso help lists every command; each command's --help (and
// -h, and verso help <command>) prints its usage, description and
// flags on stdout and exits 0; with no command the list goes to stderr
// with exit 2.
func TestHelp(t *testing.T) {
	code, out, _ := runCode("--help")
	if code != 0 {
		t.Fatalf("verso --help: exit %d", code)
	}
	for _, c := range cliCommands() {
		if !strings.Contains(out, "\n  "+c.name+" ") {
			t.Errorf("verso --help does not list %s:\n%s", c.name, out)
		}
		for _, args := range [][]string{{c.name, "--help"}, {c.name, "-h"}, {"help", c.name}} {
			code, got, errOut := runCode(args...)
			if code != 0 || !strings.HasPrefix(got, "usage: verso "+c.name) || errOut != "" {
				t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, got, errOut)
			}
		}
	}
	code, sout, serr := runCode("commit", "--help")
	if code != 0 || !strings.Contains(sout, "-m/--message <value>") {
		t.Errorf("commit --help does not list its options:\n%s%s", sout, serr)
	}
	code, sout, _ = runCode("log", "--help")
	if code != 0 || !strings.Contains(sout, "-n, --max-count int") {
		t.Errorf("log --help does not list its flags:\n%s", sout)
	}
	code, sout, serr = runCode()
	if code != 2 || sout != "" || !strings.Contains(serr, "Available Commands") {
		t.Errorf("no command: exit %d, stdout %q, stderr %q", code, sout, serr)
	}
	code, sout, _ = runCode("help", "versioning")
	if code != 0 || !strings.Contains(sout, "dolt_commit") {
		t.Errorf("help versioning: exit %d, %q", code, sout)
	}
}

// TestUsageErrors: an unknown flag or too many arguments is one line on
// stderr, in the command line's terms, saying where the usage is, and
// exit 2.
func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"log", "--bogus"}, "verso log: unknown flag: --bogus (verso log --help lists the flags)"},
		{[]string{"log", "a", "b"}, `verso log: log takes at most 1, but got ["a" "b"] (verso log --help)`},
		{[]string{"fsck", "x"}, `verso fsck: fsck takes no arguments, but got ["x"] (verso fsck --help)`},
		{[]string{"gc", "-x"}, "verso gc: unknown shorthand flag: 'x' in -x (verso gc --help lists the flags)"},
		{[]string{"commit", "--bogus"}, "verso commit: error: unknown option `bogus'"},
		{[]string{"sql-server", "--port", "x"}, `verso sql-server: invalid argument "x" for "-P, --port" flag`},
	} {
		code, out, errOut := runCode(tc.args...)
		if code != 2 || out != "" || !strings.HasPrefix(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", tc.args, code, out, errOut, tc.want)
		}
	}
}

// TestGNUFlags: flags take GNU forms: --flag=value, --flag value, a
// short flag's value attached (-n1), and flags after the positional
// arguments.
func TestGNUFlags(t *testing.T) {
	dir := t.TempDir()
	runOK(t, "init", "--name=T", "--email", "t@x", dir)
	runOK(t, "-C", dir, "sql", "--query=CREATE TABLE t (id INT PRIMARY KEY)")
	runOK(t, "-C", dir, "commit", "-Am", "one")
	for _, args := range [][]string{{"log", "-n1", "--oneline"}, {"log", "--oneline", "--max-count=1"}, {"log", "HEAD", "--oneline", "-n", "1"}} {
		code, out, errOut := runCode(append([]string{"-C", dir}, args...)...)
		if code != 0 || strings.Count(out, "\n") != 1 || !strings.Contains(out, "one") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}
