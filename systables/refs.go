package systables

import (
	"fmt"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"slices"

	"github.com/verso-db/verso"
)

// System tables over refs and the working set, with Dolt's columns:
//
//	dolt_branches  name text PRIMARY KEY, hash text, latest_committer text,
//	               latest_committer_email text, latest_commit_date
//	               datetime(3), latest_commit_message text, remote text,
//	               branch text, dirty tinyint (the working set differs
//	               from the head), latest_author text,
//	               latest_author_email text, latest_author_date datetime(3)
//	dolt_tags      tag_name text, tag_hash text (the primary key), tagger
//	               text, email text, date datetime(3), message text
//	dolt_status    table_name text, staged tinyint, status text: the
//	               session branch's staged changes (HEAD to staged, staged
//	               = 1), unstaged ones (staged to working, as the session's
//	               transaction sees it) and conflicts. status is "new
//	               table", "modified", "deleted" or "conflict".
//
// They are plain scans, computed when the statement reads them: there
// are few branches and tags, and dolt_status diffs two pairs of root
// values, which costs what changed.

var (
	branchesSchema = sql.Schema{
		textCol(BranchesName, "name", true, false),
		textCol(BranchesName, "hash", false, false),
		textCol(BranchesName, "latest_committer", false, true),
		textCol(BranchesName, "latest_committer_email", false, true),
		{Name: "latest_commit_date", Type: types.Datetime3, Source: BranchesName, Nullable: true},
		textCol(BranchesName, "latest_commit_message", false, true),
		textCol(BranchesName, "remote", false, true),
		textCol(BranchesName, "branch", false, true),
		{Name: "dirty", Type: types.Boolean, Source: BranchesName, Nullable: true},
		textCol(BranchesName, "latest_author", false, true),
		textCol(BranchesName, "latest_author_email", false, true),
		{Name: "latest_author_date", Type: types.Datetime3, Source: BranchesName, Nullable: true},
	}
	tagsSchema = sql.Schema{
		textCol(TagsName, "tag_name", true, false),
		textCol(TagsName, "tag_hash", true, false),
		textCol(TagsName, "tagger", false, false),
		textCol(TagsName, "email", false, false),
		{Name: "date", Type: types.Datetime3, Source: TagsName, Nullable: false},
		textCol(TagsName, "message", false, false),
	}
	// stashesSchema is Dolt's: the stash's list and index, the branch
	// and the head it was taken on, and that head's message.
	stashesSchema = sql.Schema{
		textCol(StashesName, "name", false, false),
		textCol(StashesName, "stash_id", false, false),
		textCol(StashesName, "branch", false, false),
		textCol(StashesName, "hash", false, false),
		textCol(StashesName, "commit_message", false, true),
	}
	statusTableSchema = sql.Schema{
		textCol(StatusName, "table_name", true, false),
		{Name: "staged", Type: types.Boolean, Source: StatusName, PrimaryKey: true, Nullable: false},
		textCol(StatusName, "status", true, false),
	}
	// statusIgnoredSchema is dolt_status_ignored's: dolt_status's columns
	// and whether dolt_ignore ignores the (untracked) table.
	statusIgnoredSchema = sql.Schema{
		textCol(StatusIgnName, "table_name", true, false),
		{Name: "staged", Type: types.Boolean, Source: StatusIgnName, PrimaryKey: true, Nullable: false},
		textCol(StatusIgnName, "status", true, false),
		{Name: "ignored", Type: types.Boolean, Source: StatusIgnName, Nullable: false},
	}
)

func (v *View) branchRows(ctx *sql.Context) ([]sql.Row, error) {
	g := v.Graph
	bs, err := g.Branches(ctx)
	if err != nil {
		return nil, err
	}
	ups, err := g.Upstreams(ctx)
	if err != nil {
		return nil, err
	}
	rows := make([]sql.Row, 0, len(bs))
	for _, b := range bs {
		c, ws, err := g.BranchState(ctx, b.Name)
		if err != nil {
			return nil, err
		}
		who := c.Meta.CommitterOrAuthor()
		dirty := ws.Working != c.Root || ws.Staged != c.Root
		up := ups[b.Name]
		rows = append(rows, sql.Row{b.Name, c.Addr.String(), who.Name, who.Email, c.Meta.Time, c.Meta.Message, up.Remote, up.Branch, dirty,
			c.Meta.Author.Name, c.Meta.Author.Email, c.Meta.AuthorWhen()})
	}
	return rows, nil
}

// branchesImpl is dolt_branches' scan and its lookup by name: a handful
// of branches, read as they are now.
type branchesImpl struct{ v *View }

func (b branchesImpl) scan(ctx *sql.Context) (sql.RowIter, error) {
	rows, err := b.v.branchRows(ctx)
	if err != nil {
		return nil, err
	}
	return sql.RowsToRowIter(rows...), nil
}

func (b branchesImpl) lookup(ctx *sql.Context, _ string, keys []string) (sql.RowIter, error) {
	rows, err := b.v.branchRows(ctx)
	if err != nil {
		return nil, err
	}
	var out []sql.Row
	for _, r := range rows {
		if slices.Contains(keys, r[0].(string)) {
			out = append(out, r)
		}
	}
	return sql.RowsToRowIter(out...), nil
}

func (b branchesImpl) rowCount(ctx *sql.Context) (uint64, bool, error) {
	bs, err := b.v.Graph.Branches(ctx)
	return uint64(len(bs)), true, err
}

func (v *View) tagRows(ctx *sql.Context) ([]sql.Row, error) {
	ts, err := v.Graph.Tags(ctx)
	if err != nil {
		return nil, err
	}
	rows := make([]sql.Row, 0, len(ts))
	for _, t := range ts {
		rows = append(rows, sql.Row{t.Name, t.Commit.String(), t.Tagger.Name, t.Tagger.Email, t.Time, t.Message})
	}
	return rows, nil
}

func (v *View) stashRows(ctx *sql.Context) ([]sql.Row, error) {
	tx, err := v.Session.Txn(ctx)
	if err != nil {
		return nil, err
	}
	stashes, err := tx.DB().Stashes(ctx, "")
	if err != nil {
		return nil, err
	}
	rows := make([]sql.Row, 0, len(stashes))
	for _, s := range stashes {
		var msg any
		if base, err := v.Graph.ReadCommit(ctx, s.Base); err == nil {
			msg = base.Meta.Message
		}
		rows = append(rows, sql.Row{s.List, fmt.Sprintf("stash@{%d}", s.Index), s.Branch, s.Base.String(), msg})
	}
	return rows, nil
}

func (v *View) statusRows(ctx *sql.Context) ([]sql.Row, error) {
	return v.status(ctx, false)
}

func (v *View) statusIgnoredRows(ctx *sql.Context) ([]sql.Row, error) {
	return v.status(ctx, true)
}

// status returns dolt_status's rows, or with ignored dolt_status_ignored's.
func (v *View) status(ctx *sql.Context, ignored bool) ([]sql.Row, error) {
	tx, err := v.Session.Txn(ctx)
	if err != nil {
		return nil, err
	}
	if tx.ReadOnly() {
		return nil, nil // a commit has no working set
	}
	if err := v.Session.Flush(ctx); err != nil {
		return nil, err
	}
	var entries []verso.StatusEntry
	if ignored {
		entries, err = tx.StatusWithIgnored(ctx)
	} else {
		entries, err = tx.Status(ctx)
	}
	if err != nil {
		return nil, err
	}
	rows := make([]sql.Row, len(entries))
	for i, e := range entries {
		rows[i] = sql.Row{e.Name(), e.Staged, e.Status.String()}
		if ignored {
			rows[i] = append(rows[i], e.Ignored)
		}
	}
	return rows, nil
}
