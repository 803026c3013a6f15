package commitgraph

import (
	"strings"
	"testing"
)

// TestRootNamesGolden pins the root value's names: databases on disk hold
// them, so a change here would orphan every stored table, conflict set and
// event log. A new kind of entry gets a new prefix.
func TestRootNamesGolden(t *testing.T) {
	want := "tables/ tableopts/ conflicts/ views/ triggers/ procedures/ foreignkeys/ events/ dbopts/ violations/ schemaconflicts/ sqlevents/"
	if got := strings.Join(RootPrefixes, " "); got != want {
		t.Fatalf("root value prefixes changed:\n got %s\nwant %s", got, want)
	}
	for i, p := range RootPrefixes {
		for j, q := range RootPrefixes {
			if i != j && strings.HasPrefix(p, q) {
				t.Fatalf("prefix %q begins with %q: their entries would mix", p, q)
			}
		}
	}
}
