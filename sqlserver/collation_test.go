package sqlserver

import "testing"

func TestCollatedLookups(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, "CREATE TABLE c (pk INT PRIMARY KEY, v VARCHAR(20) COLLATE utf8mb4_0900_ai_ci, KEY (v))")
	env.exec(ctx, "INSERT INTO c VALUES (1, 'abc'), (2, 'ABC'), (3, 'aBc'), (4, 'abd'), (5, 'AB')")
	env.check(ctx, "SELECT pk FROM c WHERE v = 'abc' ORDER BY pk", "[1] [2] [3]")
	env.check(ctx, "SELECT pk FROM c WHERE v IN ('abc') ORDER BY pk", "[1] [2] [3]")
	env.check(ctx, "SELECT pk FROM c WHERE v <= 'aBc' ORDER BY pk", "[1] [2] [3] [5]")
	env.check(ctx, "SELECT pk FROM c WHERE v > 'ABC' ORDER BY pk", "[4]")
	env.exec(ctx, "CREATE TABLE e (pk INT PRIMARY KEY, e ENUM('x', 'y', 'z'), KEY (e))")
	env.exec(ctx, "INSERT INTO e VALUES (1, 'x'), (2, 'y'), (3, 'z'), (4, 'y')")
	env.check(ctx, "SELECT pk FROM e WHERE e = 'y' ORDER BY pk", "[2] [4]")
	env.check(ctx, "SELECT pk FROM e WHERE e > 'x' ORDER BY pk", "[2] [3] [4]")
	env.check(ctx, "SELECT pk FROM e WHERE e = 2 ORDER BY pk", "[2] [4]")
}

func TestDecimalScale(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, "CREATE TABLE d (id INT PRIMARY KEY, v DECIMAL(10,4), KEY (v))")
	env.exec(ctx, "INSERT INTO d VALUES (1, 2.5), (2, 1.2340), (3, 0)")
	env.check(ctx, "SELECT v FROM d ORDER BY id", "[2.5000] [1.2340] [0.0000]")
	env.check(ctx, "SELECT id FROM d WHERE v = 2.50", "[1]")
}
