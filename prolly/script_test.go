package prolly

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/verso-db/verso/chunks"
)

// TestScripts runs the scripts in testdata/*.txt. A script is a list of
// cases; each is a command line, input lines, a line "----" and the
// expected output, ended by a blank line. Lines starting with # are
// comments. Keys and values are plain text. Run with PROLLY_REWRITE=1 to
// write the actual outputs into the files.
//
//	build NAME                       input: key=value lines, any order
//	fill NAME N SIZE                 keys k000000.. with SIZE-byte values
//	apply NAME FROM                  input: +key=value or -key lines
//	diff FROM TO                     the differences, one per line
//	merge NAME BASE OURS THEIRS RES  RES: ours, theirs, fail or concat;
//	                                 the result, or its diff from OURS if big
//	scan NAME [start=K] [stop=K] [reverse] [excl-start] [incl-stop]
//	ordinal NAME KEY                 the number of keys below KEY
//	at NAME I                        the I-th entry
//	same A B                         whether A and B have one root address
func TestScripts(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) { runScript(t, f) })
	}
}

type scriptCase struct {
	line     int
	cmd      string
	input    []string
	expected []string
}

func parseScript(t *testing.T, text string) (cases []scriptCase, raw []string) {
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			continue
		}
		c := scriptCase{line: i + 1, cmd: l}
		for i++; i < len(lines) && lines[i] != "----"; i++ {
			c.input = append(c.input, lines[i])
		}
		if i == len(lines) {
			t.Fatalf("line %d: no ----", c.line)
		}
		for i++; i < len(lines) && lines[i] != ""; i++ {
			c.expected = append(c.expected, lines[i])
		}
		cases = append(cases, c)
	}
	return cases, lines
}

func runScript(t *testing.T, path string) {
	ctx := context.Background()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cases, _ := parseScript(t, string(text))
	ns := NewNodeStore(chunks.NewMemoryStore())
	maps := map[string]Map{}
	get := func(c scriptCase, name string) Map {
		m, ok := maps[name]
		if !ok {
			t.Fatalf("line %d: no map %q", c.line, name)
		}
		return m
	}
	var out strings.Builder
	rewrite := os.Getenv("PROLLY_REWRITE") != ""
	for _, c := range cases {
		got := runCase(t, ctx, ns, maps, get, c)
		if rewrite {
			fmt.Fprintf(&out, "%s\n", c.cmd)
			for _, l := range c.input {
				fmt.Fprintf(&out, "%s\n", l)
			}
			fmt.Fprintf(&out, "----\n")
			for _, l := range got {
				fmt.Fprintf(&out, "%s\n", l)
			}
			fmt.Fprintf(&out, "\n")
			continue
		}
		if !slices.Equal(got, c.expected) {
			t.Errorf("%s:%d: %s\ngot:\n%s\nwant:\n%s", path, c.line, c.cmd, strings.Join(got, "\n"), strings.Join(c.expected, "\n"))
		}
	}
	if rewrite {
		// Comments are kept by writing them back before the first case
		// they precede; simplest is to keep the header comment block.
		header := ""
		for _, l := range strings.Split(string(text), "\n") {
			if !strings.HasPrefix(l, "#") {
				break
			}
			header += l + "\n"
		}
		if err := os.WriteFile(path, []byte(header+"\n"+out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func kv(k, v []byte) string { return string(k) + "=" + string(v) }

func runCase(t *testing.T, ctx context.Context, ns *NodeStore, maps map[string]Map, get func(scriptCase, string) Map, c scriptCase) []string {
	f := strings.Fields(c.cmd)
	fail := func(err error) []string { return []string{"error: " + err.Error()} }
	checked := func(name string, m Map) []string {
		if err := m.Check(ctx); err != nil {
			t.Fatalf("line %d: %v", c.line, err)
		}
		maps[name] = m
		return []string{fmt.Sprintf("count=%d height=%d", m.Count(), m.Height())}
	}
	switch f[0] {
	case "build":
		ed := NewMap(ns).Edit()
		for _, l := range c.input {
			k, v, _ := strings.Cut(l, "=")
			_ = ed.Put([]byte(k), []byte(v))
		}
		m, err := ed.Map(ctx)
		if err != nil {
			return fail(err)
		}
		return checked(f[1], m)
	case "fill":
		// fill NAME N VALUESIZE: keys k000000 .. k(N-1), values of
		// VALUESIZE bytes ending in the key number.
		n, _ := strconv.Atoi(f[2])
		size, _ := strconv.Atoi(f[3])
		b := NewBuilder(ns)
		for i := 0; i < n; i++ {
			v := fmt.Sprintf("%0*d", size, i)
			if err := b.Add(ctx, []byte(fmt.Sprintf("k%06d", i)), []byte(v)); err != nil {
				return fail(err)
			}
		}
		m, err := b.Map(ctx)
		if err != nil {
			return fail(err)
		}
		return checked(f[1], m)
	case "apply":
		var edits []Edit
		for _, l := range c.input {
			k, v, _ := strings.Cut(l[1:], "=")
			edits = append(edits, Edit{Key: []byte(k), Value: []byte(v), Delete: l[0] == '-'})
		}
		slices.SortFunc(edits, func(a, b Edit) int { return bytes.Compare(a.Key, b.Key) })
		m, err := get(c, f[2]).Apply(ctx, edits)
		if err != nil {
			return fail(err)
		}
		return checked(f[1], m)
	case "diff":
		var out []string
		err := DiffMaps(ctx, get(c, f[1]), get(c, f[2]), func(d Diff) error {
			switch d.Type {
			case Added:
				out = append(out, "+ "+kv(d.Key, d.To))
			case Removed:
				out = append(out, "- "+kv(d.Key, d.From))
			default:
				out = append(out, "~ "+kv(d.Key, d.From)+" -> "+string(d.To))
			}
			return nil
		})
		if err != nil {
			return fail(err)
		}
		return out
	case "merge":
		var out []string
		res := map[string]Resolver{"ours": ResolveOurs, "theirs": ResolveTheirs, "fail": FailOnConflict, "concat": concatResolver}[f[5]]
		show := func(v []byte, in bool) string {
			if !in {
				return "absent"
			}
			return string(v)
		}
		m, err := Merge(ctx, get(c, f[2]), get(c, f[3]), get(c, f[4]), func(cf Conflict) ([]byte, bool, error) {
			out = append(out, fmt.Sprintf("conflict %s: base=%s ours=%s theirs=%s", cf.Key, show(cf.Base, cf.InBase), show(cf.Ours, cf.InOurs), show(cf.Theirs, cf.InTheirs)))
			return res(cf)
		})
		if err != nil {
			if !errors.Is(err, ErrConflict) {
				t.Fatalf("line %d: %v", c.line, err)
			}
			return append(out, fail(err)...)
		}
		out = append(out, checked(f[1], m)...)
		if m.Count() > 50 {
			// A big result is shown as its difference from ours.
			out = append(out, "from ours:")
			return append(out, runCase(t, ctx, ns, maps, get, scriptCase{line: c.line, cmd: "diff " + f[3] + " " + f[1]})...)
		}
		it := m.IterAll(ctx)
		for it.Next(ctx) {
			out = append(out, kv(it.Key(), it.Value()))
		}
		return out
	case "scan":
		var r Range
		for _, a := range f[2:] {
			switch k, v, _ := strings.Cut(a, "="); k {
			case "start":
				r.Start = []byte(v)
			case "stop":
				r.Stop = []byte(v)
			case "reverse":
				r.Reverse = true
			case "excl-start":
				r.StartExclusive = true
			case "incl-stop":
				r.StopInclusive = true
			}
		}
		var out []string
		it := get(c, f[1]).Iter(ctx, r)
		for it.Next(ctx) {
			out = append(out, kv(it.Key(), it.Value()))
		}
		if it.Err() != nil {
			return fail(it.Err())
		}
		return out
	case "ordinal":
		n, err := get(c, f[1]).Ordinal(ctx, []byte(f[2]))
		if err != nil {
			return fail(err)
		}
		return []string{strconv.FormatUint(n, 10)}
	case "at":
		i, _ := strconv.ParseUint(f[2], 10, 64)
		k, v, err := get(c, f[1]).GetOrdinal(ctx, i)
		if err != nil {
			return fail(err)
		}
		return []string{kv(k, v)}
	case "same":
		if get(c, f[1]).Address() == get(c, f[2]).Address() {
			return []string{"same"}
		}
		return []string{"different"}
	}
	t.Fatalf("line %d: unknown command %q", c.line, f[0])
	return nil
}
