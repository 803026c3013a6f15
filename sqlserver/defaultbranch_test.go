package sqlserver

import (
	"fmt"
	"testing"
)

// TestDefaultBranchVariable: SET GLOBAL @@<db>_default_branch makes new
// sessions start on that branch, as Dolt's does; a branch that does not
// exist leaves the database's own; SHOW VARIABLES shows the per-database
// variables with their values.
func TestDefaultBranchVariable(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := env.session("")
	env.exec(ctx, "CREATE DATABASE dbdefault")
	ctx = env.session("dbdefault")
	env.exec(ctx, "CALL dolt_branch('feat')")
	t.Cleanup(func() { env.exec(env.session(""), "SET GLOBAL dbdefault_default_branch = ''") })
	branch := func() string {
		rows := env.exec(env.session("dbdefault"), "SELECT active_branch()")
		return fmt.Sprint(rows[0][0])
	}
	if b := branch(); b != "main" {
		t.Fatalf("a new session is on %s, want main", b)
	}
	env.exec(ctx, "SET GLOBAL dbdefault_default_branch = 'feat'")
	if b := branch(); b != "feat" {
		t.Fatalf("with the default branch feat, a new session is on %s", b)
	}
	env.exec(ctx, "SET GLOBAL dbdefault_default_branch = 'nosuch'")
	if b := branch(); b != "main" {
		t.Fatalf("with a default branch that does not exist, a new session is on %s", b)
	}
	rows := env.exec(env.session("dbdefault"), "SHOW VARIABLES LIKE 'dbdefault_head_ref'")
	if len(rows) != 1 || rows[0][1] != "refs/heads/main" {
		t.Fatalf("SHOW VARIABLES: %v", rows)
	}
}
