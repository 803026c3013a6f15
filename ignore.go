package verso

import (
	"context"
	"fmt"
	"strings"

	"github.com/verso-db/verso/commitgraph"
)

// IgnoreTable is the table of patterns that keep untracked tables out of
// staging, as Dolt's dolt_ignore: a table of the root value like any
// other (versioned, merged, committed), with the columns
//
//	pattern text PRIMARY KEY   a glob: * or % any run of characters, ?
//	                           one, any other character itself
//	ignored tinyint(1)         whether the tables it matches are ignored
//
// A table is ignored while it is untracked (new in the working root, not
// staged): StageAll (dolt_add('.'), -A) and Status leave it out, Stage by
// name skips it unless forced, Clean keeps it. A tracked table is never
// ignored.
const IgnoreTable = "dolt_ignore"

// IgnoreRules are the patterns of a root's dolt_ignore.
type IgnoreRules struct {
	patterns []ignorePattern
}

type ignorePattern struct {
	glob    string
	ignored bool
}

// IgnoreConflictError refuses to decide for a table that patterns of both
// kinds match, none more specific than the others.
type IgnoreConflictError struct {
	Table               string
	Ignored, NotIgnored []string
}

func (e *IgnoreConflictError) Error() string {
	return fmt.Sprintf("the table %s matches conflicting patterns in dolt_ignore:\nignored:     %s\nnot ignored: %s",
		e.Table, strings.Join(e.Ignored, ", "), strings.Join(e.NotIgnored, ", "))
}

// IgnoreRules reads the dolt_ignore table of root (none: no rules).
func (db *DB) IgnoreRules(ctx context.Context, root RootValue) (*IgnoreRules, error) {
	addr, ok, err := root.Get(ctx, commitgraph.TablePrefix+IgnoreTable)
	if err != nil || !ok {
		return &IgnoreRules{}, err
	}
	t, err := db.tableAt(ctx, addr)
	if err != nil {
		return nil, err
	}
	s := t.Schema()
	if len(s.Columns) != 2 {
		return nil, fmt.Errorf("verso: %s has %d columns, not (pattern, ignored)", IgnoreTable, len(s.Columns))
	}
	rules := &IgnoreRules{}
	it := t.Scan(ctx, nil, nil, false)
	for it.Next(ctx) {
		row := it.Row()
		if row[0].IsNull() {
			continue
		}
		rules.patterns = append(rules.patterns, ignorePattern{glob: row[0].AsString(), ignored: !row[1].IsNull() && row[1].AsInt() != 0})
	}
	return rules, it.Err()
}

// Ignored reports whether the patterns ignore table: of the patterns that
// match it, one that matches the text of another is less specific and
// drops out (a* loses to ab*); what is left must agree.
func (r *IgnoreRules) Ignored(table string) (bool, error) {
	var yes, no []string
	for _, p := range r.patterns {
		if globMatch(p.glob, table) {
			if p.ignored {
				yes = append(yes, p.glob)
			} else {
				no = append(no, p.glob)
			}
		}
	}
	yes, no = moreSpecific(yes, no), moreSpecific(no, yes)
	switch {
	case len(yes) > 0 && len(no) > 0:
		return false, &IgnoreConflictError{Table: table, Ignored: yes, NotIgnored: no}
	default:
		return len(yes) > 0, nil
	}
}

// moreSpecific returns the patterns of a that match no pattern of b's
// text (those that do are less specific than it).
func moreSpecific(a, b []string) []string {
	var out []string
	for _, p := range a {
		general := false
		for _, q := range b {
			if globMatch(p, q) {
				general = true
			}
		}
		if !general {
			out = append(out, p)
		}
	}
	return out
}

// globMatch matches s against a dolt_ignore pattern: * or % any run of
// characters, ? any one, every other character (_ too) itself.
func globMatch(glob, s string) bool {
	g, t := []rune(glob), []rune(s)
	// The classic two-pointer match, backtracking to the last *.
	gi, ti, star, mark := 0, 0, -1, 0
	for ti < len(t) {
		switch {
		case gi < len(g) && (g[gi] == '?' || g[gi] == t[ti]) && g[gi] != '*' && g[gi] != '%':
			gi++
			ti++
		case gi < len(g) && (g[gi] == '*' || g[gi] == '%'):
			star, mark = gi, ti
			gi++
		case star >= 0:
			gi, mark = star+1, mark+1
			ti = mark
		default:
			return false
		}
	}
	for gi < len(g) && (g[gi] == '*' || g[gi] == '%') {
		gi++
	}
	return gi == len(g)
}

// IgnoredNew returns the tables of root to that root from lacks and that
// to's dolt_ignore ignores (the WORKING rows of dolt_diff leave them out).
func (db *DB) IgnoredNew(ctx context.Context, from, to RootValue) ([]string, error) {
	rules, err := db.IgnoreRules(ctx, to)
	if err != nil {
		return nil, err
	}
	return untrackedIgnored(ctx, rules, from, to)
}

// untrackedIgnored returns the untracked tables of working (new there,
// not in staged) that rules ignore.
func untrackedIgnored(ctx context.Context, rules *IgnoreRules, staged, working RootValue) ([]string, error) {
	if len(rules.patterns) == 0 {
		return nil, nil
	}
	changed, err := ChangedItems(ctx, staged, working)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, c := range changed {
		if !c.IsTable || c.InFrom {
			continue
		}
		ig, err := rules.Ignored(c.Name)
		if err != nil {
			return nil, err
		}
		if ig {
			out = append(out, c.Name)
		}
	}
	return out, nil
}
