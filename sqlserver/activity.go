package sqlserver

import (
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
)

// Branch activity, as Dolt tracks it when its server is configured to
// (behavior.branch_activity_tracking): for each branch, when a session
// last read it (began a transaction on it), when one last wrote it (a
// transaction or a procedure changed its working set or head), and how
// many sessions are on it now (the live sessions whose latest
// transaction on the database began on the branch). dolt_branch_activity
// shows it;
// without tracking, a read of it fails with Dolt's error. What is tracked
// lives in memory: a restart starts afresh (system_start_time).

// activityTracker is a provider's record of branch activity.
type activityTracker struct {
	start time.Time

	mu            sync.Mutex
	reads, writes map[branchKey]time.Time
	// sessions holds the live sessions, each with the branch of each
	// database it last began a transaction on.
	sessions map[*Session]map[string]string
}

// branchKey names a branch of a database (its lower-case name).
type branchKey struct{ db, branch string }

// TrackBranchActivity turns on the tracking of branch activity for the
// sessions made from now on. Call it before serving.
func (p *Provider) TrackBranchActivity() {
	p.activity = &activityTracker{start: time.Now().UTC(), reads: map[branchKey]time.Time{},
		writes: map[branchKey]time.Time{}, sessions: map[*Session]map[string]string{}}
}

// join counts s among the live sessions.
func (a *activityTracker) join(s *Session) {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.sessions[s] = map[string]string{}
}

// leave forgets the session s, which ended.
func (a *activityTracker) leave(s *Session) {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.sessions, s)
}

// note records a read (by session s) or a write of branch of st now.
func (a *activityTracker) note(s *Session, st *dbState, branch string, write bool) {
	if a == nil {
		return
	}
	k := branchKey{strings.ToLower(st.name), branch}
	now := time.Now().UTC()
	a.mu.Lock()
	defer a.mu.Unlock()
	if write {
		a.writes[k] = now
		return
	}
	a.reads[k] = now
	if on, ok := a.sessions[s]; ok {
		on[k.db] = branch
	}
}

// activityRows returns dolt_branch_activity's rows of the database: one
// per branch, by name.
func (p *Provider) activityRows(ctx *sql.Context, db *Database) ([]sql.Row, error) {
	a := p.activity
	bs, err := db.st.graph.Branches(ctx)
	if err != nil {
		return nil, err
	}
	branches := make([]string, len(bs))
	for i, b := range bs {
		branches[i] = b.Name
	}
	sort.Strings(branches)
	dbName := strings.ToLower(db.st.name)
	a.mu.Lock()
	active := map[string]int32{}
	for _, on := range a.sessions {
		if b, ok := on[dbName]; ok {
			active[b]++
		}
	}
	rows := make([]sql.Row, len(branches))
	for i, b := range branches {
		k := branchKey{dbName, b}
		var read, write any
		if t, ok := a.reads[k]; ok {
			read = t
		}
		if t, ok := a.writes[k]; ok {
			write = t
		}
		rows[i] = sql.Row{b, read, write, active[b], a.start}
	}
	a.mu.Unlock()
	return rows, nil
}
