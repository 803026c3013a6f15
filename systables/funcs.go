package systables

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
)

// ErrBadArgument is returned for arguments that a table function does not
// take.
var ErrBadArgument = errors.New("systables: bad argument")

// Staged names the staged root in a revision argument.
const Staged = verso.Staged

// revision is a resolved revision argument: a commit's root, or the
// working or staged root (commit nil).
type revision struct {
	name   string
	commit *commitgraph.Commit
	root   commitgraph.RootValue
	// when is the date WORKING and STAGED show when set (diffRevision).
	when time.Time
}

// resolve resolves a revision spec: WORKING and STAGED (the session's
// working and staged roots), HEAD (the snapshot's head), or any spec
// commitgraph.Resolve takes (branches and tags as they are now, hashes,
// ~ and ^ steps).
func (v *View) resolve(ctx context.Context, spec string) (*revision, error) {
	r := &revision{name: spec}
	var err error
	switch strings.ToUpper(spec) {
	case Working:
		r.root = v.Working
		return r, nil
	case Staged:
		ws, err := v.Refs.WorkingSet(ctx, v.Branch)
		if err != nil {
			return nil, err
		}
		r.root, err = v.Graph.OpenRoot(ctx, ws.Staged)
		return r, err
	case "HEAD":
		r.commit, err = v.head(ctx)
	default:
		r.commit, err = v.Graph.Resolve(ctx, spec, v.Branch)
	}
	if err != nil {
		return nil, err
	}
	r.root, err = v.openRoot(ctx, r.commit)
	return r, err
}

func (r *revision) date() any {
	switch {
	case r.commit != nil:
		return r.commit.Meta.Time
	case !r.when.IsZero():
		return r.when
	}
	return nil
}

// splitRange splits "a..b" or "a...b".
func splitRange(s string) (a, b string, three, ok bool) {
	if i := strings.Index(s, "..."); i > 0 && i+3 < len(s) {
		return s[:i], s[i+3:], true, true
	}
	if i := strings.Index(s, ".."); i > 0 && i+2 < len(s) {
		return s[:i], s[i+2:], false, true
	}
	return "", "", false, false
}

// LogQuery is dolt_log('rev', ...): the commits reachable from the given
// revisions (HEAD if none) and not from the excluded ones, in log order.
//
// Arguments, as Dolt takes them: revisions; ^rev and --not rev... exclude
// a revision's history; a..b is ^a b; a...b is the commits reachable from
// one of a and b but not from both; --parents adds the parents column;
// --decorate (=short, =full or =no) adds the refs column; --merges and
// --min-parents=N keep commits with at least 2 (N) parents; -n N keeps the
// first N.
type LogQuery struct {
	v       *View
	include []chunks.Address
	exclude []chunks.Address
	// common holds the pairs of a...b: what both reach is left out.
	common      [][2]chunks.Address
	parents     bool
	decorate    bool
	minParents  int
	limit       int
	schema      sql.Schema
	decorations map[chunks.Address]string
}

// NewLogQuery parses the arguments of dolt_log for the table function
// named source.
func NewLogQuery(ctx *sql.Context, v *View, source string, args []string) (*LogQuery, error) {
	q := &LogQuery{v: v, limit: -1}
	not := false
	resolve := func(spec string) (chunks.Address, error) {
		r, err := v.resolve(ctx, spec)
		if err != nil {
			return chunks.Address{}, err
		}
		if r.commit == nil {
			return chunks.Address{}, fmt.Errorf("%w: dolt_log: %q is not a commit", ErrBadArgument, spec)
		}
		return r.commit.Addr, nil
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--not":
			not = true
		case a == "--parents":
			q.parents = true
		case a == "--decorate" || a == "--decorate=short" || a == "--decorate=full":
			q.decorate = true
		case a == "--decorate=no":
			q.decorate = false
		case a == "--merges":
			q.minParents = 2
		case strings.HasPrefix(a, "--min-parents="):
			n, err := strconv.Atoi(strings.TrimPrefix(a, "--min-parents="))
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%w: dolt_log: %q", ErrBadArgument, a)
			}
			q.minParents = n
		case a == "-n" || a == "--number":
			if i+1 >= len(args) {
				return nil, fmt.Errorf("%w: dolt_log: %s needs a count", ErrBadArgument, a)
			}
			i++
			n, err := strconv.Atoi(args[i])
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%w: dolt_log: %s %q", ErrBadArgument, a, args[i])
			}
			q.limit = n
		case strings.HasPrefix(a, "-") && a != "-":
			return nil, fmt.Errorf("%w: dolt_log: unknown option %q", ErrBadArgument, a)
		case strings.HasPrefix(a, "^"):
			x, err := resolve(a[1:])
			if err != nil {
				return nil, err
			}
			q.exclude = append(q.exclude, x)
		default:
			if l, r, three, ok := splitRange(a); ok {
				la, err := resolve(l)
				if err != nil {
					return nil, err
				}
				ra, err := resolve(r)
				if err != nil {
					return nil, err
				}
				if three {
					q.include = append(q.include, la, ra)
					q.common = append(q.common, [2]chunks.Address{la, ra})
				} else {
					q.include = append(q.include, ra)
					q.exclude = append(q.exclude, la)
				}
				continue
			}
			x, err := resolve(a)
			if err != nil {
				return nil, err
			}
			if not {
				q.exclude = append(q.exclude, x)
			} else {
				q.include = append(q.include, x)
			}
		}
	}
	if len(q.include) == 0 {
		h, err := v.head(ctx)
		if err != nil {
			return nil, err
		}
		q.include = []chunks.Address{h.Addr}
	}
	full := LogSchema(source)
	q.schema = full[:6:6]
	if q.parents {
		q.schema = append(q.schema, full[6])
	}
	if q.decorate {
		q.schema = append(q.schema, full[7])
		var err error
		if q.decorations, err = v.decorations(ctx); err != nil {
			return nil, err
		}
	}
	return q, nil
}

// Schema returns the columns of the query: dolt_log's first six, then
// parents and refs when asked for.
func (q *LogQuery) Schema() sql.Schema { return q.schema }

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
	var common [][2]*scope
	for _, p := range q.common {
		a, err := newScope(ctx, q.v, p[:1])
		if err != nil {
			return nil, err
		}
		b, err := newScope(ctx, q.v, p[1:])
		if err != nil {
			return nil, err
		}
		common = append(common, [2]*scope{a, b})
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
			if out, err := inBoth(ctx, common, c); err != nil {
				return nil, err
			} else if out {
				continue
			}
			n++
			full := LogRow(c, q.decorations[c.Addr])
			row := append(sql.Row{}, full[:6]...)
			if q.parents {
				row = append(row, full[6])
			}
			if q.decorate {
				row = append(row, full[7])
			}
			return []sql.Row{row}, nil
		}
	}}, nil
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

// inBoth reports whether c is in both histories of one of the pairs.
func inBoth(ctx context.Context, pairs [][2]*scope, c *commitgraph.Commit) (bool, error) {
	for _, p := range pairs {
		a, err := p[0].contains(ctx, c)
		if err != nil || !a {
			if err != nil {
				return false, err
			}
			continue
		}
		if b, err := p[1].contains(ctx, c); err != nil || b {
			return b, err
		}
	}
	return false, nil
}

// ChangedTables returns the tables that differ from revision from to
// revision to (specs as dolt_diff() takes them, WORKING and STAGED
// included).
func ChangedTables(ctx *sql.Context, v *View, from, to string) ([]TableChange, error) {
	rf, err := v.resolve(ctx, from)
	if err != nil {
		return nil, err
	}
	rt, err := v.resolve(ctx, to)
	if err != nil {
		return nil, err
	}
	return RootChanges(ctx, v.Graph, rf.root, rt.root)
}

// IsRevision reports whether spec names a revision of v: WORKING, STAGED,
// HEAD, a branch, a tag, a commit hash, with steps.
func IsRevision(ctx *sql.Context, v *View, spec string) bool {
	_, err := v.resolve(ctx, spec)
	return err == nil
}
