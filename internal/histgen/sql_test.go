package histgen_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso/internal/histgen"
	"github.com/verso-db/verso/sqlserver"
)

// TestSQLReplay builds histories through the Go API, replays their Ops as
// SQL in a second database of the same server, and checks that every
// commit's t holds the same rows on both sides: the merges included, whose
// conflicts the replay resolves.
func TestSQLReplay(t *testing.T) {
	for _, o := range []histgen.Options{
		{Commits: 80, Rows: 8, Seed: 1, BranchEvery: 5, BranchLen: 3},
		{Commits: 40, Rows: 3, Seed: 4, BranchEvery: 4, BranchLen: 2, KeepBranches: true},
	} {
		t.Run(fmt.Sprintf("seed%d", o.Seed), func(t *testing.T) {
			p := sqlserver.NewMemoryProvider()
			e := sqle.NewDefault(p)
			defer e.Close()
			ctx := sql.NewContext(context.Background(), sql.WithSession(p.NewSession(sql.NewBaseSession())))
			query := func(q string) []sql.Row {
				t.Helper()
				_, it, _, err := e.Query(ctx, q)
				if err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				rows, err := sql.RowIterToRows(ctx, it)
				if err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				return rows
			}
			query("CREATE DATABASE api")
			query("CREATE DATABASE replay")
			g, _ := p.CommitGraph("api")
			h, err := histgen.Build(context.Background(), g, o)
			if err != nil {
				t.Fatal(err)
			}
			script, err := histgen.SQL(h.Ops)
			if err != nil {
				t.Fatal(err)
			}
			ctx.SetCurrentDatabase("replay")
			for _, st := range script {
				for _, q := range st {
					query(q)
				}
			}
			replayed := map[string]string{} // message -> hash
			for _, r := range query("SELECT message, commit_hash FROM dolt_log") {
				replayed[r[0].(string)] = r[1].(string)
			}
			merges := 0
			for _, c := range h.Commits {
				rh, ok := replayed[c.Meta.Message]
				if !ok {
					t.Fatalf("%q is not in the replay's log", c.Meta.Message)
				}
				want := fmt.Sprint(query(fmt.Sprintf("SELECT * FROM api.t AS OF '%s' ORDER BY pk", c.Addr)))
				got := fmt.Sprint(query(fmt.Sprintf("SELECT * FROM replay.t AS OF '%s' ORDER BY pk", rh)))
				if got != want {
					t.Fatalf("%q: t holds\n%s\nafter the replay, and through the Go API\n%s", c.Meta.Message, got, want)
				}
				if n := query(fmt.Sprintf("SELECT COUNT(*) FROM replay.dolt_commit_ancestors WHERE commit_hash = '%s'", rh))[0][0]; fmt.Sprint(n) != fmt.Sprint(len(c.Parents)) {
					t.Fatalf("%q: %v parents after the replay, %d through the Go API", c.Meta.Message, n, len(c.Parents))
				}
				if len(c.Parents) > 1 {
					merges++
				}
			}
			if merges == 0 {
				t.Fatal("the history has no merge")
			}
		})
	}
}

// TestSQLRefuses checks that SQL says which histories it cannot replay.
func TestSQLRefuses(t *testing.T) {
	p := sqlserver.NewMemoryProvider()
	e := sqle.NewDefault(p)
	defer e.Close()
	ctx := sql.NewContext(context.Background(), sql.WithSession(p.NewSession(sql.NewBaseSession())))
	_, it, _, err := e.Query(ctx, "CREATE DATABASE d")
	if err == nil {
		_, err = sql.RowIterToRows(ctx, it)
	}
	if err != nil {
		t.Fatal(err)
	}
	g, _ := p.CommitGraph("d")
	h, err := histgen.Build(context.Background(), g, histgen.Options{Commits: 40, Rows: 4, Seed: 1, Random: true, EventsEvery: 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := histgen.SQL(h.Ops); !errors.Is(err, histgen.ErrNoSQL) {
		t.Fatalf("SQL of a random history with events: %v, want ErrNoSQL", err)
	}
}
