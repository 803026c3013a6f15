package verso

import (
	"errors"
	"regexp"
	"strings"
	"testing"
)

// TestGlobMatch checks dolt_ignore's globs against a regexp built from
// them, on every short name over a small alphabet.
func TestGlobMatch(t *testing.T) {
	globs := []string{"", "*", "?", "a*", "*a", "a?b", "*a*", "a**b", "?*?", "ab", "*b?", "a*b*a", "a%", "%b%a", "a_"}
	var names []string
	var gen func(prefix string, n int)
	gen = func(prefix string, n int) {
		names = append(names, prefix)
		if n == 0 {
			return
		}
		for _, c := range "ab_" {
			gen(prefix+string(c), n-1)
		}
	}
	gen("", 5)
	for _, g := range globs {
		re := regexp.MustCompile("^" + strings.NewReplacer("*", ".*", "%", ".*", "?", ".").Replace(g) + "$")
		for _, n := range names {
			if got, want := globMatch(g, n), re.MatchString(n); got != want {
				t.Errorf("globMatch(%q, %q) = %v, want %v", g, n, got, want)
			}
		}
	}
}

// TestIgnoreRules: the more specific pattern wins; patterns of both kinds
// that none beats conflict.
func TestIgnoreRules(t *testing.T) {
	r := &IgnoreRules{patterns: []ignorePattern{{"x?", true}, {"a*", true}, {"ab*", false}, {"q*", true}, {"*q", false}}}
	for name, want := range map[string]bool{"xy": true, "xyz": false, "abc": false, "ac": true, "t": false} {
		if got, err := r.Ignored(name); err != nil || got != want {
			t.Errorf("Ignored(%q) = %v, %v; want %v", name, got, err, want)
		}
	}
	var ce *IgnoreConflictError
	if _, err := r.Ignored("qq"); !errors.As(err, &ce) || ce.Ignored[0] != "q*" || ce.NotIgnored[0] != "*q" {
		t.Fatalf("Ignored(qq): %v, want a conflict of q* and *q", err)
	}
	want := "the table qq matches conflicting patterns in dolt_ignore:\nignored:     q*\nnot ignored: *q"
	if ce.Error() != want {
		t.Fatalf("conflict message %q", ce.Error())
	}
}
