package sqlserver

import (
	"errors"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/systables"
)

// Dolt's merge preview table functions (registered with the history table
// functions, historyfuncs.go):
//
//	dolt_preview_merge_conflicts_summary('ours', 'theirs')
//	dolt_preview_merge_conflicts('ours', 'theirs', 'table')
//
// They show what merging the revision theirs into the revision ours (at
// their commits, HEAD being the session's branch) would conflict on: the
// engine's three-way merge run in scratch space (verso.DB.PreviewMerge),
// which changes nothing. The rows are package systables' (preview.go).

// previewArity is the number of arguments of each preview function.
var previewArity = map[string]int{systables.PreviewSummaryName: 2, systables.PreviewConflictsName: 3}

// checkPreviewArgs refuses, as Dolt's functions do, a wrong number of
// arguments or one that is not text (NULL), for the preview functions
// (nothing for other names).
func checkPreviewArgs(ctx *sql.Context, name string, args []sql.Expression) error {
	n, ok := previewArity[name]
	if !ok {
		return nil
	}
	if len(args) != n {
		return sql.ErrInvalidArgumentNumber.New(name, n, len(args))
	}
	for _, a := range args {
		if a.Resolved() && !types.IsText(a.Type(ctx)) {
			return sql.ErrInvalidArgumentDetails.New(name, a.String())
		}
	}
	return nil
}

// previewMerge previews the merge of theirs into ours in d, failing in
// Dolt's words.
func previewMerge(ctx *sql.Context, d *Database, ours, theirs string) (*verso.MergePreview, error) {
	p, err := d.st.db.PreviewMerge(ctx, ours, theirs, d.branch, columnDefault(ctx))
	return p, previewError(err)
}

func previewSummaryFunc(ctx *sql.Context, d *Database, args []string) (rowsFunc, sql.Schema, error) {
	return func(ctx *sql.Context) (sql.RowIter, error) {
		switch {
		case args[0] == "":
			return nil, errors.New("left branch name cannot be empty")
		case args[1] == "":
			return nil, errors.New("right branch name cannot be empty")
		}
		p, err := previewMerge(ctx, d, args[0], args[1])
		if err != nil {
			return nil, err
		}
		return sql.RowsToRowIter(systables.PreviewSummaryRows(p)...), nil
	}, systables.PreviewSummarySchema, nil
}

// previewConflictsFunc fixes the columns when the query is planned, from
// a preview it keeps for the rows while both revisions still name the
// same commits (a join may read the rows more than once).
func previewConflictsFunc(ctx *sql.Context, d *Database, args []string) (rowsFunc, sql.Schema, error) {
	p, err := previewMerge(ctx, d, args[0], args[1])
	if err != nil {
		return nil, nil, err
	}
	view, err := d.systemView(ctx)
	if err != nil {
		return nil, nil, err
	}
	pc, err := systables.NewPreviewConflicts(ctx, view, p, args[2])
	if err != nil {
		return nil, nil, err
	}
	var mu sync.Mutex
	return func(ctx *sql.Context) (sql.RowIter, error) {
		mu.Lock()
		defer mu.Unlock()
		ours, err := d.st.db.Resolve(ctx, args[0], d.branch)
		if err != nil {
			return nil, previewError(err)
		}
		theirs, err := d.st.db.Resolve(ctx, args[1], d.branch)
		if err != nil {
			return nil, previewError(err)
		}
		if ours.Addr != p.Ours.Addr || theirs.Addr != p.Theirs.Addr {
			if p, err = previewMerge(ctx, d, args[0], args[1]); err != nil {
				return nil, err
			}
		}
		rows, err := pc.Rows(ctx, p)
		if err != nil {
			return nil, err
		}
		return sql.RowsToRowIter(rows...), nil
	}, pc.Schema(), nil
}

// previewError words the failure to resolve a revision as Dolt does.
func previewError(err error) error {
	var rev *verso.RevisionError
	if errors.As(err, &rev) {
		return revisionError(rev.Rev, rev.Err)
	}
	return err
}
