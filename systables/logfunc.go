package systables

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/internal/doltargs"
)

// LogQuery is dolt_log('rev', ...): the commits reachable from the given
// revisions (HEAD if none) and not from the excluded ones, in log order,
// with dolt_log's twelve columns.
//
// Its arguments are those of Dolt's log parser, parsed as Dolt parses
// them (package doltargs):
//
//	rev ...              the revisions whose histories are listed
//	^rev, --not rev ...  revisions whose histories are left out
//	a..b                 ^a b; a...b: a and b, without their merge base's
//	                     history. A range must be the only revision.
//	--parents            fills the parents column (NULL otherwise)
//	--decorate short|full|no|auto  how the refs column names refs; short
//	                     by default, and for auto, with a warning
//	--show-signature     fills the signature column ('': verso does not
//	                     sign commits; NULL otherwise)
//	--merges, --min-parents N  only commits with at least 2 (N) parents
//	--tables/-t t,...    only commits that changed one of the tables
//	                     (against their first two parents; never a root
//	                     commit)
//	-n/--number N        the first N commits (N < 0: all)
//	--all                every branch's history besides the revisions
//
// Errors are Dolt's: "Invalid argument to dolt_log: ..." for the
// arguments; a revision that names nothing fails with a
// *verso.RevisionError, which package sqlserver words as Dolt does.
//
// Dolt 2.3.1 accepts -n and --all and ignores them; verso limits and
// lists every branch, as the options say (docs/DOLT-COMPATIBILITY.md).
type LogQuery struct {
	v       *View
	include []chunks.Address
	exclude []chunks.Address
	// head is the commit whose refs get "HEAD -> ": the one revision
	// listed (HEAD without revisions, the session's HEAD with --all);
	// zero if several.
	head       chunks.Address
	parents    bool
	signature  bool
	decorate   decoration
	minParents int
	limit      int
	tables     []string
	refs       *refsInfo
	source     string
	warnings   []string
}

// logSpec is dolt_log's options, as Dolt's log parser declares them for the
// table function.
var logSpec = doltargs.Spec{
	Opts: map[string]bool{"number": true, "min-parents": true, "merges": false, "parents": false, "decorate": true,
		"not": true, "show-signature": false, "tables": true, "all": false},
	Shorts: map[byte]string{'n': "number", 't': "tables"},
	Lists:  map[string]bool{"not": true, "tables": true},
	Ints:   map[string]bool{"number": true, "min-parents": true},
}

// decorateAutoWarning is Dolt's warning for --decorate auto.
const decorateAutoWarning = "--decorate=auto has no defined meaning in SQL contexts; defaulting to short"

// invalidLogArgument is Dolt's error for an argument dolt_log does not
// take.
func invalidLogArgument(source, reason string) error {
	return sql.ErrInvalidArgumentDetails.New(source, reason)
}

// NewLogQuery parses the arguments of dolt_log for the table function
// named source and resolves its revisions.
func NewLogQuery(ctx *sql.Context, v *View, source string, args []string) (*LogQuery, error) {
	a, err := logSpec.Parse(args)
	if err != nil {
		return nil, invalidLogArgument(source, err.Error())
	}
	q := &LogQuery{v: v, source: source, limit: a.Int("number", -1), minParents: a.Int("min-parents", 0),
		parents: a.Has("parents"), signature: a.Has("show-signature"), tables: a.List("tables")}
	if a.Has("merges") {
		q.minParents = 2
	}
	if a.Has("decorate") {
		switch d := a.Vals["decorate"]; d {
		case "short":
		case "full":
			q.decorate = decorateFull
		case "no":
			q.decorate = decorateNo
		case "auto":
			q.warnings = append(q.warnings, decorateAutoWarning)
		default:
			return nil, invalidLogArgument(source, fmt.Sprintf("invalid --decorate option: %q", d))
		}
	}
	var revs, carets []string
	for _, p := range a.Pos {
		if strings.HasPrefix(p, "^") {
			carets = append(carets, p)
		} else {
			revs = append(revs, p)
		}
	}
	nots := a.List("not")
	for _, r := range revs {
		if strings.Contains(r, "..") && (len(revs) > 1 || len(carets) > 0 || a.Has("not")) {
			return nil, invalidLogArgument(source, "revision cannot contain '..' or '...' if multiple revisions exist")
		}
	}
	for _, r := range carets {
		if strings.Contains(r, "..") {
			return nil, invalidLogArgument(source, "revision cannot contain both '..' or '...' and '^'")
		}
	}
	for _, r := range nots {
		if strings.Contains(r, "..") {
			return nil, invalidLogArgument(source, "--not revision cannot contain '..'")
		}
		if strings.HasPrefix(r, "^") {
			return nil, invalidLogArgument(source, "--not revision cannot contain '^'")
		}
	}
	excluded := make([]string, 0, len(carets)+len(nots))
	for _, r := range carets {
		excluded = append(excluded, r[1:])
	}
	excluded = append(excluded, nots...)
	threeDot := false
	if len(revs) == 1 {
		if l, r, ok := strings.Cut(revs[0], "..."); ok {
			revs, threeDot = []string{l, r}, true
		} else if l, r, ok := strings.Cut(revs[0], ".."); ok {
			revs, excluded = []string{r}, []string{l}
		}
	}
	for _, r := range revs {
		c, err := q.resolve(ctx, r)
		if err != nil {
			return nil, err
		}
		q.include = append(q.include, c.Addr)
	}
	if len(revs) == 0 {
		h, err := v.head(ctx)
		if err != nil {
			return nil, err
		}
		q.include = []chunks.Address{h.Addr}
	}
	for _, r := range excluded {
		c, err := q.resolve(ctx, r)
		if err != nil {
			return nil, err
		}
		q.exclude = append(q.exclude, c.Addr)
	}
	if threeDot {
		mb, err := v.Graph.MergeBase(ctx, q.include[0], q.include[1])
		if err != nil {
			return nil, err
		}
		q.exclude = append(q.exclude, mb.Addr)
	}
	if len(q.include) == 1 {
		q.head = q.include[0]
	}
	if q.refs, err = v.info(ctx); err != nil {
		return nil, err
	}
	if a.Has("all") {
		h, err := v.head(ctx)
		if err != nil {
			return nil, err
		}
		q.head = h.Addr
		q.include = append(q.include, h.Addr)
		q.include = append(q.include, q.refs.branchHeads...)
	}
	q.include = uniqueAddrs(q.include)
	return q, nil
}

// resolve resolves a revision of dolt_log (View.resolveCommit).
func (q *LogQuery) resolve(ctx context.Context, spec string) (*commitgraph.Commit, error) {
	return q.v.resolveCommit(ctx, spec)
}

// uniqueAddrs returns as without repeats, in order.
func uniqueAddrs(as []chunks.Address) []chunks.Address {
	out := as[:0:0]
	for _, a := range as {
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

// Schema returns the columns of the query: dolt_log's.
func (q *LogQuery) Schema() sql.Schema { return LogSchema(q.source) }

// Warnings returns the warnings the arguments give (--decorate auto).
func (q *LogQuery) Warnings() []string { return q.warnings }

// RowIter returns the rows, streamed.
func (q *LogQuery) RowIter(ctx *sql.Context) (sql.RowIter, error) {
	src, err := newLogMerge(ctx, q.v.Graph, q.include)
	if err != nil {
		return nil, err
	}
	ex, err := newScope(ctx, q.v, q.exclude)
	if err != nil {
		return nil, err
	}
	n := 0
	return &rowsIter{next: func(ctx *sql.Context) ([]sql.Row, error) {
		for {
			if q.limit >= 0 && n >= q.limit {
				return nil, io.EOF
			}
			c, err := src.next(ctx)
			if err != nil {
				return nil, err
			}
			if len(c.Parents) < q.minParents {
				continue
			}
			if out, err := ex.contains(ctx, c); err != nil {
				return nil, err
			} else if out {
				continue
			}
			if len(q.tables) > 0 {
				if changed, err := q.changedTables(ctx, c); err != nil {
					return nil, err
				} else if !changed {
					continue
				}
			}
			n++
			row := logRow(c, q.refs.refsColumn(c.Addr, q.head, q.decorate))
			if !q.parents {
				row[6] = nil
			}
			if !q.signature {
				row[8] = nil
			}
			return []sql.Row{row}, nil
		}
	}}, nil
}

// changedTables reports whether c changed one of the query's tables
// against its first two parents, as Dolt decides it: a table c has and
// neither parent has, or that a parent has and c has not, or whose value
// differs from a parent's that has it. A root commit changed none.
func (q *LogQuery) changedTables(ctx context.Context, c *commitgraph.Commit) (bool, error) {
	if len(c.Parents) == 0 {
		return false, nil
	}
	roots := make([]commitgraph.RootValue, 0, 3)
	for _, a := range append([]chunks.Address{c.Addr}, c.Parents[:min(2, len(c.Parents))]...) {
		pc, err := q.v.Graph.ReadCommit(ctx, a)
		if err != nil {
			return false, err
		}
		r, err := q.v.Graph.OpenRoot(ctx, pc.Root)
		if err != nil {
			return false, err
		}
		roots = append(roots, r)
	}
	for _, t := range q.tables {
		var addrs [3]chunks.Address
		var has [3]bool
		for i, r := range roots {
			a, ok, err := r.Get(ctx, TablePrefix+t)
			if err != nil {
				return false, err
			}
			addrs[i], has[i] = a, ok
		}
		if !has[0] {
			if has[1] || has[2] {
				return true, nil
			}
			continue
		}
		if !has[1] && !has[2] || has[1] && addrs[1] != addrs[0] || has[2] && addrs[2] != addrs[0] {
			return true, nil
		}
	}
	return false, nil
}

// logMerge yields the histories of several heads once each, in log order
// (descending height, then descending time, then ascending address): the
// merged closures, a height at a time.
type logMerge struct {
	m     *mergedSource
	ahead *commitgraph.Commit
	group []*commitgraph.Commit
}

func newLogMerge(ctx context.Context, g *commitgraph.DB, heads []chunks.Address) (commitSource, error) {
	if len(heads) == 1 {
		return logSource{g.Log(ctx, heads[0])}, nil
	}
	m, err := newMergedSource(ctx, g, heads)
	if err != nil {
		return nil, err
	}
	return &logMerge{m: m}, nil
}

func (l *logMerge) next(ctx context.Context) (*commitgraph.Commit, error) {
	if len(l.group) == 0 {
		c := l.ahead
		l.ahead = nil
		if c == nil {
			var err error
			if c, err = l.m.next(ctx); err != nil {
				return nil, err
			}
		}
		l.group = append(l.group, c)
		for {
			d, err := l.m.next(ctx)
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, err
			}
			if d.Height != c.Height {
				l.ahead = d
				break
			}
			l.group = append(l.group, d)
		}
		slices.SortFunc(l.group, func(a, b *commitgraph.Commit) int {
			if c := b.Meta.Time.Compare(a.Meta.Time); c != 0 {
				return c
			}
			return a.Addr.Compare(b.Addr)
		})
	}
	c := l.group[0]
	l.group = l.group[1:]
	return c, nil
}
