package verso

import (
	"context"
	"sort"
	"strings"

	"github.com/verso-db/verso/commitgraph"
)

// CleanOptions tune Clean.
type CleanOptions struct {
	// Tables limits the cleaning to these untracked tables (matched
	// without case); a name of no table fails with TableNotFoundError,
	// and a tracked table named is left as it is.
	Tables []string
	// DryRun finds the tables and drops none.
	DryRun bool
	// IncludeIgnored drops the untracked tables dolt_ignore ignores too
	// (dolt_clean -x); without it they stay, unless named in Tables.
	IncludeIgnored bool
}

// Clean drops the untracked tables of the branch's working root (new
// there, neither staged nor committed), as dolt_clean does, and returns
// their names, sorted.
func (t *Txn) Clean(ctx context.Context, opts CleanOptions) ([]string, error) {
	var dropped []string
	err := t.UpdateBranch(ctx, func(s *BranchState) (*BranchChange, error) {
		dropped = nil
		changed, err := ChangedItems(ctx, s.Staged, s.Working)
		if err != nil {
			return nil, err
		}
		untracked := map[string]string{} // lower-case name -> name
		for _, c := range changed {
			if c.IsTable && !c.InFrom {
				untracked[strings.ToLower(c.Name)] = c.Name
			}
		}
		if len(opts.Tables) > 0 {
			for _, n := range opts.Tables {
				if name, ok := untracked[strings.ToLower(n)]; ok {
					dropped = append(dropped, name)
					continue
				}
				if _, _, ok, err := FindTable(ctx, s.Working, n); err != nil {
					return nil, err
				} else if !ok {
					return nil, &TableNotFoundError{Table: n}
				}
			}
		} else {
			rules, err := t.db.IgnoreRules(ctx, s.Working)
			if err != nil {
				return nil, err
			}
			for _, name := range untracked {
				ignored, err := rules.Ignored(name)
				if err != nil {
					return nil, err
				}
				if !ignored || opts.IncludeIgnored {
					dropped = append(dropped, name)
				}
			}
		}
		sort.Strings(dropped)
		if opts.DryRun || len(dropped) == 0 {
			return nil, nil
		}
		w, err := dropItems(ctx, s.Working, dropped)
		if err != nil {
			return nil, err
		}
		return &BranchChange{Working: w, Staged: s.Staged, Merge: s.WS.Merge}, nil
	})
	return dropped, err
}

// RemoveError refuses dolt_rm of tables whose working or staged values
// differ from the head's: removing them would lose those changes.
type RemoveError struct {
	Tables []string
	// Staged: the tables are new and staged (Cached would remove them
	// anyway); else their working or staged values differ from the
	// head's.
	Staged bool
}

func (e *RemoveError) Error() string {
	where := "working root"
	if e.Staged {
		where = "staged root"
	}
	return "verso: the " + where + " changes " + strings.Join(e.Tables, ", ") + "; commit or reset the changes first"
}

// Remove drops the tables from the staged root and, unless cached, from
// the working root too, as dolt_rm does: the tables' removal is staged.
// Each must be the same in the working, staged and head roots (else a
// RemoveError; with cached, only working and staged must agree).
func (t *Txn) Remove(ctx context.Context, tables []string, cached bool) error {
	return t.UpdateBranch(ctx, func(s *BranchState) (*BranchChange, error) {
		var unstaged, staged []string
		for _, n := range tables {
			name, w, ok, err := FindTable(ctx, s.Working, n)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, &TableNotFoundError{Table: n}
			}
			st, _, err := s.Staged.Get(ctx, commitgraph.TablePrefix+name)
			if err != nil {
				return nil, err
			}
			hd, _, err := s.HeadRoot.Get(ctx, commitgraph.TablePrefix+name)
			if err != nil {
				return nil, err
			}
			// Dolt's words: a table the head has counts as unstaged when
			// only staged; a new one staged is "saved in the index".
			switch {
			case w != st:
				unstaged = append(unstaged, name)
			case st != hd && !cached && !hd.IsEmpty():
				unstaged = append(unstaged, name)
			case st != hd && !cached:
				staged = append(staged, name)
			}
		}
		if len(unstaged) > 0 {
			return nil, &RemoveError{Tables: unstaged}
		}
		if len(staged) > 0 {
			return nil, &RemoveError{Tables: staged, Staged: true}
		}
		stagedRoot, err := dropItems(ctx, s.Staged, tables)
		if err != nil {
			return nil, err
		}
		working := s.Working
		if !cached {
			if working, err = dropItems(ctx, s.Working, tables); err != nil {
				return nil, err
			}
		}
		return &BranchChange{Working: working, Staged: stagedRoot, Merge: s.WS.Merge}, nil
	})
}

// dropItems removes the items named (matched without case) from root.
func dropItems(ctx context.Context, root commitgraph.RootValue, names []string) (commitgraph.RootValue, error) {
	items, err := itemEntries(ctx, root)
	if err != nil {
		return root, err
	}
	var edits []commitgraph.RootEdit
	for _, n := range names {
		for _, e := range items[findItem(items, n)] {
			edits = append(edits, commitgraph.RootEdit{Name: e.Name, Delete: true})
		}
	}
	return root.Edit(ctx, dedupEdits(edits)...)
}
