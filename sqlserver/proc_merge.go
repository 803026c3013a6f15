package sqlserver

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/planbuilder"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/tablemerge"
	"github.com/verso-db/verso/tables"
)

// dolt_merge, dolt_cherry_pick and dolt_revert: three-way merges of root
// values (package tablemerge) into the session's branch.
//
//	CALL dolt_merge('feature' [, '-m', msg] [, '--no-ff' | '--ff-only']
//	     [, '--squash'] [, '--no-commit'])   -> hash, fast_forward, conflicts, message
//	CALL dolt_merge('--abort')
//	CALL dolt_cherry_pick('commit')          -> hash, data_conflicts, schema_conflicts, constraint_violations
//	CALL dolt_cherry_pick('--abort')
//	CALL dolt_revert('commit' [, '--author', 'Name <email>'])  -> hash
//
// A merge that fast-forwards moves the branch to the merged commit. Any
// other merge merges the three roots: without conflicts it commits a merge
// commit (parents: HEAD, then the merged commit) unless --no-commit or
// --squash ask to stop before; with conflicts it leaves the merged root in
// the working set with the conflicts under conflicts/<table>, the merge in
// the working set's MergeState (so the next dolt_commit makes the merge
// commit), and the tables that merged cleanly staged. Merges are refused
// while the branch has uncommitted changes or a merge in progress; tables
// created and never staged (untracked) are carried over. Schema
// conflicts, a table dropped on one side and changed on the other, and
// merged rows that break a unique key fail the merge and change nothing
// (tablemerge's errors say what to change).

func init() {
	registerProcedure(sql.ExternalStoredProcedureDetails{Name: "dolt_merge", Schema: mergeResultSchema, Function: doltMerge})
	registerProcedure(sql.ExternalStoredProcedureDetails{Name: "dolt_cherry_pick", Schema: cherryPickSchema, Function: doltCherryPick})
	registerProcedure(sql.ExternalStoredProcedureDetails{Name: "dolt_revert", Schema: hashSchema, Function: doltRevert})
}

var (
	mergeResultSchema = sql.Schema{
		{Name: "hash", Type: types.LongText, Nullable: true},
		{Name: "fast_forward", Type: types.Int64, Nullable: false},
		{Name: "conflicts", Type: types.Int64, Nullable: false},
		{Name: "message", Type: types.LongText, Nullable: true},
	}
	cherryPickSchema = sql.Schema{
		{Name: "hash", Type: types.LongText, Nullable: true},
		{Name: "data_conflicts", Type: types.Int64, Nullable: false},
		{Name: "schema_conflicts", Type: types.Int64, Nullable: false},
		{Name: "constraint_violations", Type: types.Int64, Nullable: false},
	}
)

var mergeSpec = optSpec{
	proc: "dolt_merge",
	opts: map[string]bool{
		"message": true, "no-ff": false, "ff-only": false, "squash": false, "no-commit": false,
		"abort": false, "author": true,
	},
	shorts: map[byte]string{'m': "message"},
}

// Messages of dolt_merge's result row.
const (
	msgMergeOK    = "merge successful"
	msgUpToDate   = "Everything up-to-date"
	msgConflicts  = "conflicts found; resolve them (dolt_conflicts_resolve, or edit the tables and delete the rows of dolt_conflicts_<table>), then dolt_add and dolt_commit; or abort with dolt_merge('--abort')"
	msgMergeAbort = "merge aborted"
)

// errMergeActive is returned for a merge begun while another is in
// progress.
var errMergeActive = errors.New("merging is not possible because you have not committed an active merge; commit it (dolt_add, then dolt_commit) or abort it with dolt_merge('--abort')")

// checkClean refuses a merge, cherry-pick or revert on a branch with
// uncommitted changes, as Dolt does: the merge result would mix with them.
// Untracked tables (new in the working root, not staged) are no such
// change: it returns them, for carryUntracked to carry over the merge.
func checkClean(ctx *sql.Context, proc string, s *branchState) (untracked []string, err error) {
	if s.ws.Merge != nil {
		return nil, errMergeActive
	}
	if ts, err := conflictedTables(ctx, s.working); err != nil {
		return nil, err
	} else if len(ts) > 0 {
		return nil, fmt.Errorf("%s: the working set has unresolved conflicts in %s; resolve them and commit, or discard them with dolt_reset('--hard')", proc, strings.Join(ts, ", "))
	}
	staged, err := changedItems(ctx, s.headRt, s.staged)
	if err != nil {
		return nil, err
	}
	working, err := changedItems(ctx, s.headRt, s.working)
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, c := range staged {
		names[c.name] = true
	}
	for _, c := range working {
		if c.isTable && !c.inFrom && !names[c.name] {
			untracked = append(untracked, c.name)
			continue
		}
		names[c.name] = true
	}
	if len(names) == 0 {
		return untracked, nil
	}
	list := make([]string, 0, len(names))
	for n := range names {
		list = append(list, n)
	}
	sort.Strings(list)
	return nil, fmt.Errorf("%s: cannot merge with uncommitted changes (in %s); commit them (dolt_commit('-Am', ...)) or discard them (dolt_reset('--hard')) first", proc, strings.Join(list, ", "))
}

// carryUntracked carries the untracked tables of the working root into the
// working root ch leaves, unless the merge brings a table of one of their
// names, which it refuses.
func carryUntracked(ctx *sql.Context, proc string, s *branchState, untracked []string, ch *branchChange) (*branchChange, error) {
	if ch == nil || len(untracked) == 0 {
		return ch, nil
	}
	items, err := itemEntries(ctx, ch.working)
	if err != nil {
		return nil, err
	}
	for _, n := range untracked {
		if findItem(items, n) != "" {
			return nil, fmt.Errorf("%s: the merge would overwrite the untracked table %s of the working set; commit it (dolt_add, dolt_commit) or drop it first", proc, n)
		}
	}
	w, err := copyItems(ctx, s.working, ch.working, untracked, proc)
	if err != nil {
		return nil, err
	}
	c := *ch
	c.working = w
	return &c, nil
}

// constantExpr evaluates an SQL expression made of literals and operators
// only (no functions, columns or subqueries, which need a catalog and a
// row).
func constantExpr(ctx *sql.Context, text string) (v any, ok bool) {
	// The planner without a catalog panics on what it would look up there
	// (functions); the walk below keeps those out, and this is the net
	// for any that it misses: such a default is simply not constant.
	defer func() {
		if recover() != nil {
			v, ok = nil, false
		}
	}()
	stmt, err := sqlparser.Parse("SELECT " + text)
	if err != nil {
		return nil, false
	}
	constant := true
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch n.(type) {
		case *sqlparser.FuncExpr, *sqlparser.ColName, *sqlparser.Subquery, *sqlparser.ConvertExpr,
			*sqlparser.ConvertUsingExpr, *sqlparser.TimestampFuncExpr, *sqlparser.ExtractFuncExpr,
			*sqlparser.TrimExpr, *sqlparser.SubstrExpr, *sqlparser.CaseExpr, *sqlparser.CharExpr,
			*sqlparser.MatchExpr, *sqlparser.GroupConcatExpr, *sqlparser.ValuesFuncExpr,
			*sqlparser.IntervalExpr, *sqlparser.ExistsExpr:
			constant = false
		}
		return constant, nil
	}, stmt)
	if !constant {
		return nil, false
	}
	node, _, _, _, err := planbuilder.New(ctx, nil, nil).Parse("SELECT "+text, nil, false)
	if err != nil {
		return nil, false
	}
	p, ok := node.(*plan.Project)
	if !ok || len(p.Projections) != 1 || !p.Projections[0].Resolved() {
		return nil, false
	}
	v, err = p.Projections[0].Eval(ctx, nil)
	return v, err == nil
}

// mergeOptions are the tablemerge options of a merge of theirs.
func mergeOptions(ctx *sql.Context, theirs chunks.Address) tablemerge.Options {
	return tablemerge.Options{Theirs: theirs, Default: columnDefault(ctx)}
}

// columnDefault evaluates the default of a column added on one side of a
// merge for the other side's rows: any default without functions or
// column references (literals of every type, arithmetic), and
// CURRENT_TIMESTAMP (the time of the merge); others go to
// tablemerge.LiteralDefault, which explains what it cannot do.
func columnDefault(ctx *sql.Context) tablemerge.DefaultFunc {
	return func(table string, col tables.Column) (tables.Value, error) {
		if col.Default == "" {
			return tablemerge.LiteralDefault(table, col)
		}
		typ, err := planbuilder.ParseColumnTypeString(ctx, col.Type)
		if err != nil {
			return tablemerge.LiteralDefault(table, col)
		}
		text := strings.TrimSpace(col.Default)
		for len(text) > 1 && text[0] == '(' && text[len(text)-1] == ')' {
			text = strings.TrimSpace(text[1 : len(text)-1])
		}
		var v any = ctx.QueryTime() // as ALTER TABLE ADD COLUMN fills existing rows
		ok := true
		switch strings.ToUpper(strings.TrimSuffix(strings.ReplaceAll(text, " ", ""), "()")) {
		case "CURRENT_TIMESTAMP", "NOW", "LOCALTIME", "LOCALTIMESTAMP":
		default:
			v, ok = constantExpr(ctx, text)
		}
		if !ok {
			return tablemerge.LiteralDefault(table, col)
		}
		v, _, err = typ.Convert(ctx, v)
		if err != nil {
			return tables.Value{}, fmt.Errorf("%w: table %q: the default %s of column %q does not fit its type %s: %v", tablemerge.ErrSchemaConflict, table, col.Default, col.Name, col.Type, err)
		}
		return toValue(ctx, typ, v)
	}
}

// mergeError turns tablemerge's refusals into messages naming the
// procedure; other errors pass as they are.
func mergeError(proc string, err error) error {
	if tablemerge.IsMergeError(err) {
		return fmt.Errorf("%s: %w", proc, err)
	}
	return err
}

// conflictState returns the change that leaves a merge with conflicts in
// the working set: the merged root (with conflicts) as working, and as
// staged the merged root with each conflicted table as staged had it.
func conflictState(ctx *sql.Context, s *branchState, res *tablemerge.Result, merge *commitgraph.MergeState) (*branchChange, error) {
	clean, err := withoutConflicts(ctx, res.Root)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(res.Conflicts))
	for i, c := range res.Conflicts {
		names[i] = c.Table
	}
	staged, err := copyItems(ctx, s.staged, clean, names, "merge")
	if err != nil {
		return nil, err
	}
	return &branchChange{working: res.Root, staged: staged, merge: merge}, nil
}

func doltMerge(ctx *sql.Context, args ...string) (sql.RowIter, error) {
	a, err := mergeSpec.parse(args)
	if err != nil {
		return nil, err
	}
	d, err := procBranch(ctx)
	if err != nil {
		return nil, err
	}
	if a.has("abort") {
		if len(a.pos) > 0 {
			return nil, errors.New("dolt_merge: --abort takes no branch")
		}
		err := d.updateBranch(ctx, func(s *branchState) (*branchChange, error) {
			if s.ws.Merge == nil {
				return nil, errors.New("dolt_merge: there is no merge to abort")
			}
			pre, err := d.st.graph.OpenRoot(ctx, s.ws.Merge.PreMergeWorking)
			if err != nil {
				return nil, err
			}
			return &branchChange{working: pre, staged: s.headRt}, nil
		})
		if err != nil {
			return nil, err
		}
		return sql.RowsToRowIter(sql.Row{"", int64(0), int64(0), msgMergeAbort}), nil
	}
	switch {
	case len(a.pos) != 1:
		return nil, errors.New("dolt_merge: name one branch (or commit) to merge, for example dolt_merge('feature')")
	case a.has("no-ff") && a.has("ff-only"):
		return nil, errors.New("dolt_merge: --no-ff and --ff-only contradict each other; give one")
	case a.has("squash") && a.has("no-ff"):
		return nil, errors.New("dolt_merge: --squash and --no-ff contradict each other; give one")
	}
	var meta commitgraph.Meta // the session's identity unless --author: taken when a commit is made
	if a.has("author") {
		if meta.Author, err = parseAuthor(a.vals["author"]); err != nil {
			return nil, err
		}
	}
	var out sql.Row
	merge := doltMergeChange(ctx, d, a, a.pos[0], meta, &out)
	err = d.updateBranch(ctx, func(s *branchState) (*branchChange, error) {
		untracked, err := checkClean(ctx, "dolt_merge", s)
		if err != nil {
			return nil, err
		}
		ch, err := merge(s)
		if err != nil {
			return nil, err
		}
		return carryUntracked(ctx, "dolt_merge", s, untracked, ch)
	})
	if err != nil {
		return nil, err
	}
	return sql.RowsToRowIter(out), nil
}

// doltMergeChange is dolt_merge's change of a clean branch: out is its
// result row.
func doltMergeChange(ctx *sql.Context, d *txDB, a *procArgs, spec string, meta commitgraph.Meta, out *sql.Row) func(s *branchState) (*branchChange, error) {
	g := d.st.graph
	return func(s *branchState) (*branchChange, error) {
		theirs, err := g.Resolve(ctx, spec, d.branch)
		if err != nil {
			return nil, fmt.Errorf("dolt_merge: %w", err)
		}
		base, err := g.MergeBase(ctx, s.head.Addr, theirs.Addr)
		if err != nil {
			return nil, fmt.Errorf("dolt_merge: %s and %s: %w", d.branch, spec, err)
		}
		theirsRoot, err := g.OpenRoot(ctx, theirs.Root)
		if err != nil {
			return nil, err
		}
		switch {
		case base.Addr == theirs.Addr:
			*out = sql.Row{s.head.Addr.String(), int64(0), int64(0), msgUpToDate}
			return nil, nil
		case base.Addr == s.head.Addr && a.has("squash"):
			*out = sql.Row{"", int64(0), int64(0), msgMergeOK}
			return &branchChange{working: theirsRoot, staged: theirsRoot}, nil
		case base.Addr == s.head.Addr && !a.has("no-ff"):
			*out = sql.Row{theirs.Addr.String(), int64(1), int64(0), msgMergeOK}
			return &branchChange{head: theirs.Addr, working: theirsRoot, staged: theirsRoot}, nil
		case a.has("ff-only"):
			return nil, fmt.Errorf("dolt_merge: not possible to fast-forward %s to %s (the branches have diverged), aborting; merge without --ff-only", d.branch, spec)
		}
		baseRoot, err := g.OpenRoot(ctx, base.Root)
		if err != nil {
			return nil, err
		}
		res, err := tablemerge.Merge(ctx, g.NodeStore(), baseRoot, s.headRt, theirsRoot, mergeOptions(ctx, theirs.Addr))
		if err != nil {
			return nil, mergeError("dolt_merge", err)
		}
		var merge *commitgraph.MergeState
		if !a.has("squash") {
			merge = &commitgraph.MergeState{Commit: theirs.Addr, PreMergeWorking: s.working.Address()}
		}
		if res.HasConflicts() {
			*out = sql.Row{"", int64(0), int64(1), msgConflicts}
			return conflictState(ctx, s, res, merge)
		}
		if a.has("no-commit") || a.has("squash") {
			*out = sql.Row{"", int64(0), int64(0), msgMergeOK}
			return &branchChange{working: res.Root, staged: res.Root, merge: merge}, nil
		}
		m := meta
		if m.Author == (commitgraph.Signature{}) {
			if m.Author, err = commitIdentity(ctx); err != nil {
				return nil, err
			}
		}
		m.Message = a.vals["message"]
		if !a.has("message") {
			m.Message = fmt.Sprintf("Merge branch '%s' into %s", spec, d.branch)
		}
		c, err := g.WriteCommit(ctx, res.Root.Address(), []chunks.Address{s.head.Addr, theirs.Addr}, m)
		if err != nil {
			return nil, err
		}
		*out = sql.Row{c.Addr.String(), int64(0), int64(0), msgMergeOK}
		return &branchChange{head: c.Addr, working: res.Root, staged: res.Root}, nil
	}
}

var pickSpec = optSpec{proc: "dolt_cherry_pick", opts: map[string]bool{"abort": false, "allow-empty": false}}

// doltCherryPick applies the changes of one commit (from its first parent)
// to the branch and commits them with the commit's message and author. With
// conflicts, the working set holds them (no commit is made): resolve them
// and dolt_commit, or run dolt_cherry_pick('--abort').
func doltCherryPick(ctx *sql.Context, args ...string) (sql.RowIter, error) {
	a, err := pickSpec.parse(args)
	if err != nil {
		return nil, err
	}
	d, err := procBranch(ctx)
	if err != nil {
		return nil, err
	}
	if a.has("abort") {
		err := d.updateBranch(ctx, func(s *branchState) (*branchChange, error) {
			if ts, err := conflictedTables(ctx, s.working); err != nil {
				return nil, err
			} else if len(ts) == 0 {
				return nil, errors.New("dolt_cherry_pick: there is no cherry-pick with conflicts to abort")
			}
			if s.ws.Merge != nil {
				return nil, errors.New("dolt_cherry_pick: the conflicts are a merge's; abort it with dolt_merge('--abort')")
			}
			return &branchChange{working: s.headRt, staged: s.headRt}, nil
		})
		if err != nil {
			return nil, err
		}
		return sql.RowsToRowIter(sql.Row{"", int64(0), int64(0), int64(0)}), nil
	}
	if len(a.pos) != 1 {
		return nil, errors.New("dolt_cherry_pick: name one commit to cherry-pick, for example dolt_cherry_pick('feature~1')")
	}
	var out sql.Row
	err = d.updateBranch(ctx, func(s *branchState) (*branchChange, error) {
		untracked, err := checkClean(ctx, "dolt_cherry_pick", s)
		if err != nil {
			return nil, err
		}
		ch, err := cherryPickChange(ctx, d, s, a, &out)
		if err != nil {
			return nil, err
		}
		return carryUntracked(ctx, "dolt_cherry_pick", s, untracked, ch)
	})
	if err != nil {
		return nil, err
	}
	return sql.RowsToRowIter(out), nil
}

// cherryPickChange is dolt_cherry_pick's change of a clean branch: out is
// its result row.
func cherryPickChange(ctx *sql.Context, d *txDB, s *branchState, a *procArgs, out *sql.Row) (*branchChange, error) {
	res, c, err := applyCommit(ctx, d, s, "dolt_cherry_pick", a.pos[0], false)
	if err != nil {
		return nil, err
	}
	if res.HasConflicts() {
		*out = sql.Row{"", int64(len(res.Conflicts)), int64(0), int64(0)}
		return conflictState(ctx, s, res, nil)
	}
	if res.Root.Address() == s.headRt.Address() && !a.has("allow-empty") {
		return nil, fmt.Errorf("dolt_cherry_pick: the changes of %s are already on %s; nothing to commit (give '--allow-empty' to commit anyway)", a.pos[0], d.branch)
	}
	m := c.Meta // the commit's author and message; made now, by us
	m.Time, m.Committer = time.Time{}, commitgraph.Signature{}
	me, err := commitIdentity(ctx)
	if err != nil {
		return nil, err
	}
	if me != m.Author {
		m.Committer = me
	}
	made, err := d.st.graph.WriteCommit(ctx, res.Root.Address(), []chunks.Address{s.head.Addr}, m)
	if err != nil {
		return nil, err
	}
	*out = sql.Row{made.Addr.String(), int64(0), int64(0), int64(0)}
	return &branchChange{head: made.Addr, working: res.Root, staged: res.Root}, nil
}

var revertSpec = optSpec{proc: "dolt_revert", opts: map[string]bool{"author": true}}

// doltRevert commits the inverse of one commit's changes (from its first
// parent) on the branch, with the message Revert "<message>". A revert
// whose changes clash with later ones fails and changes nothing.
func doltRevert(ctx *sql.Context, args ...string) (sql.RowIter, error) {
	a, err := revertSpec.parse(args)
	if err != nil {
		return nil, err
	}
	if len(a.pos) != 1 {
		return nil, errors.New("dolt_revert: name one commit to revert, for example dolt_revert('HEAD~1')")
	}
	var author commitgraph.Signature
	if a.has("author") {
		if author, err = parseAuthor(a.vals["author"]); err != nil {
			return nil, err
		}
	} else if author, err = commitIdentity(ctx); err != nil {
		return nil, err
	}
	d, err := procBranch(ctx)
	if err != nil {
		return nil, err
	}
	var made *commitgraph.Commit
	err = d.updateBranch(ctx, func(s *branchState) (*branchChange, error) {
		untracked, err := checkClean(ctx, "dolt_revert", s)
		if err != nil {
			return nil, err
		}
		res, c, err := applyCommit(ctx, d, s, "dolt_revert", a.pos[0], true)
		if err != nil {
			return nil, err
		}
		if res.HasConflicts() {
			names := make([]string, len(res.Conflicts))
			for i, t := range res.Conflicts {
				names[i] = t.Table
			}
			return nil, fmt.Errorf("dolt_revert: reverting %s conflicts with later changes to %s; nothing was changed: revert those rows by hand and commit", a.pos[0], strings.Join(names, ", "))
		}
		msg := fmt.Sprintf("Revert %q", c.Meta.Message)
		if made, err = d.st.graph.WriteCommit(ctx, res.Root.Address(), []chunks.Address{s.head.Addr}, commitgraph.Meta{Author: author, Message: msg}); err != nil {
			return nil, err
		}
		return carryUntracked(ctx, "dolt_revert", s, untracked, &branchChange{head: made.Addr, working: res.Root, staged: res.Root})
	})
	if err != nil {
		return nil, err
	}
	return sql.RowsToRowIter(sql.Row{made.Addr.String()}), nil
}

// applyCommit merges the changes of the commit spec names (from its first
// parent to it; reversed for a revert) into the branch's head root. The
// caller has checked the branch is clean (checkClean).
func applyCommit(ctx *sql.Context, d *txDB, s *branchState, proc, spec string, revert bool) (*tablemerge.Result, *commitgraph.Commit, error) {
	g := d.st.graph
	c, err := g.Resolve(ctx, spec, d.branch)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", proc, err)
	}
	switch {
	case len(c.Parents) == 0:
		return nil, nil, fmt.Errorf("%s: %s is the root commit, which has no parent to compare with", proc, spec)
	case len(c.Parents) > 1:
		return nil, nil, fmt.Errorf("%s: %s is a merge commit; only commits with one parent are supported", proc, spec)
	}
	parent, err := g.ReadCommit(ctx, c.Parents[0])
	if err != nil {
		return nil, nil, err
	}
	from, err := g.OpenRoot(ctx, parent.Root)
	if err != nil {
		return nil, nil, err
	}
	to, err := g.OpenRoot(ctx, c.Root)
	if err != nil {
		return nil, nil, err
	}
	if revert {
		from, to = to, from
	}
	res, err := tablemerge.Merge(ctx, g.NodeStore(), from, s.headRt, to, mergeOptions(ctx, c.Addr))
	if err != nil {
		return nil, nil, mergeError(proc, err)
	}
	return res, c, nil
}
