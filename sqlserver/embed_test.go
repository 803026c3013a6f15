package sqlserver

import (
	"context"
	"errors"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/verso-db/verso/commitgraph"
)

// TestNoDefaultCommitter: with SetNoDefaultCommitter, the procedures that
// make a commit or a tag fail with its error while the session names no
// identity, those that make none (a fast-forward merge, a branch) work,
// --author stands in for the identity, and once the session sets
// @@dolt_committer_name and @@dolt_committer_email commits record them.
func TestNoDefaultCommitter(t *testing.T) {
	p := NewMemoryProvider()
	errNone := errors.New("no committer: give one")
	p.SetNoDefaultCommitter(errNone)
	emb := NewEmbedded(p, EmbeddedOptions{})
	t.Cleanup(func() { emb.Engine.Close() })
	env := &testEnv{t: t, p: p, e: emb.Engine}
	ctx := sql.NewContext(context.Background(), sql.WithSession(emb.NewSession(sql.NewBaseSession())))
	env.exec(ctx, "CREATE DATABASE d")
	ctx.SetCurrentDatabase("d")
	env.exec(ctx, "CREATE TABLE t (id INT PRIMARY KEY)")

	refused := func(q string) {
		t.Helper()
		if _, err := env.query(ctx, q); !errors.Is(err, errNone) {
			t.Fatalf("%s: got %v, want the no-committer error", q, err)
		}
	}
	refused("CALL dolt_commit('-Am', 'first')")
	refused("CALL dolt_tag('v0')")
	env.exec(ctx, "CALL dolt_commit('-Am', 'first', '--author', 'A <a@example.com>')")
	env.exec(ctx, "CALL dolt_branch('feature')")
	env.exec(ctx, "CALL dolt_checkout('feature')")
	env.exec(ctx, "INSERT INTO t VALUES (1)")
	env.exec(ctx, "CALL dolt_commit('-Am', 'one', '--author', 'A <a@example.com>')")
	env.exec(ctx, "CALL dolt_checkout('main')")
	env.exec(ctx, "CALL dolt_merge('feature')") // a fast-forward: no commit made
	env.exec(ctx, "INSERT INTO t VALUES (2)")
	env.exec(ctx, "CALL dolt_commit('-Am', 'two', '--author', 'A <a@example.com>')")
	env.exec(ctx, "CALL dolt_checkout('feature')")
	env.exec(ctx, "INSERT INTO t VALUES (3)")
	env.exec(ctx, "CALL dolt_commit('-Am', 'three', '--author', 'A <a@example.com>')")
	env.exec(ctx, "CALL dolt_checkout('main')")
	refused("CALL dolt_merge('feature')") // a merge commit
	refused("CALL dolt_revert('HEAD')")

	env.exec(ctx, "SET @@dolt_committer_name = 'Jane Doe', @@dolt_committer_email = 'jane@example.com'")
	env.exec(ctx, "CALL dolt_merge('feature')")
	env.exec(ctx, "CALL dolt_tag('v1')")
	env.check(ctx, "SELECT committer, email, message FROM dolt_log LIMIT 1", "[Jane Doe jane@example.com Merge branch 'feature' into main]")

	// SetCommitter's identity is a default too.
	p.SetCommitter(commitgraph.Signature{Name: "Server", Email: "server@example.com"})
	ctx2 := sql.NewContext(context.Background(), sql.WithSession(emb.NewSession(sql.NewBaseSession())))
	ctx2.SetCurrentDatabase("d")
	env.exec(ctx2, "CALL dolt_commit('--allow-empty', '-m', 'empty')")
	env.check(ctx2, "SELECT committer FROM dolt_log LIMIT 1", "[Server]")
}

// TestEmbeddedFastPath: an embedded session's prepared primary-key
// selects and text point selects are answered by the fast path, as a
// server session's are.
func TestEmbeddedFastPath(t *testing.T) {
	emb := NewEmbedded(NewMemoryProvider(), EmbeddedOptions{})
	t.Cleanup(func() { emb.Engine.Close() })
	env := &testEnv{t: t, p: emb.p, e: emb.Engine}
	ctx := sql.NewContext(context.Background(), sql.WithSession(emb.NewSession(sql.NewBaseSession())))
	env.exec(ctx, "CREATE DATABASE d")
	ctx.SetCurrentDatabase("d")
	env.exec(ctx, "CREATE TABLE t (id INT PRIMARY KEY, v INT)")
	env.exec(ctx, "INSERT INTO t VALUES (1, 10), (2, 20)")

	const q = "SELECT v FROM t WHERE id = ?"
	if _, err := emb.Engine.PrepareQuery(ctx, q); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		before := emb.fast.hits.Load()
		_, iter, _, err := emb.Engine.QueryWithBindings(ctx, q, nil, map[string]sqlparser.Expr{"v1": sqlparser.NewIntVal([]byte("2"))}, nil)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := sql.RowIterToRows(ctx, iter)
		if err != nil || formatRows(rows) != "[20]" {
			t.Fatalf("execution %d: %v, %v", i, formatRows(rows), err)
		}
		// The first execution learns the plan's columns; later ones are
		// the fast path's.
		if hit := emb.fast.hits.Load() > before; i > 0 && !hit {
			t.Fatalf("execution %d: not answered by the fast path", i)
		}
	}
	before := emb.fast.hits.Load()
	env.check(ctx, "SELECT v FROM t WHERE id = 1", "[10]")
	env.check(ctx, "SELECT v FROM t WHERE id = 1", "[10]")
	if emb.fast.hits.Load() == before {
		t.Fatal("a text point select was not answered by the fast path")
	}
}
