package sqlserver

import (
	"strings"
	"testing"
)

func TestPlainMariaDBComments(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"SELECT 1", "SELECT 1"},
		{"/*M!999999 enable the sandbox mode */ SELECT 1", "/*M 999999 enable the sandbox mode */ SELECT 1"},
		{"/*M!999999\\- enable the sandbox mode */\n/*!40101 SET NAMES utf8mb4 */", "/*M 999999\\- enable the sandbox mode */\n/*!40101 SET NAMES utf8mb4 */"},
		{"SELECT '/*M!1 x */', \"/*M!\", `/*M!` /*M!100100 x*/", "SELECT '/*M!1 x */', \"/*M!\", `/*M!` /*M 100100 x*/"},
		{"SELECT 'it''s /*M!1 */' /*M!1 */", "SELECT 'it''s /*M!1 */' /*M 1 */"},
		{"SELECT 'a\\' /*M!1 */' /*M!1 */", "SELECT 'a\\' /*M!1 */' /*M 1 */"},
		{"-- /*M!1 */\nSELECT 1 # /*M!1 */\n/*M!1 */", "-- /*M!1 */\nSELECT 1 # /*M!1 */\n/*M 1 */"},
		{"/* /*M!1 */ SELECT 1", "/* /*M!1 */ SELECT 1"},
		{"/*!40101 /*M!1 */ */", "/*!40101 /*M 1 */ */"},
		{"SELECT 1 /*M!", "SELECT 1 /*M "},
		{"SELECT '/*M!", "SELECT '/*M!"},
	} {
		if got := PlainMariaDBComments(tc.in); got != tc.want {
			t.Errorf("%q:\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// FuzzPlainMariaDBComments: any text keeps its length, changes only by '!'
// bytes turned to spaces right after "/*M", and a second pass changes
// nothing more.
func FuzzPlainMariaDBComments(f *testing.F) {
	for _, s := range []string{"/*M!999999 x */ SELECT '/*M!' /*M!1*/", "'\\", "/*", "`a``/*M!1*/`", "-- x\n/*M!1 */"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := PlainMariaDBComments(s)
		if len(out) != len(s) {
			t.Fatalf("length %d, want %d", len(out), len(s))
		}
		for i := range s {
			if s[i] != out[i] && !(s[i] == '!' && out[i] == ' ' && i >= 3 && strings.HasSuffix(s[:i], "/*M")) {
				t.Fatalf("byte %d changed from %q to %q", i, s[i], out[i])
			}
		}
		if again := PlainMariaDBComments(out); again != out {
			t.Fatalf("a second pass changed %q to %q", out, again)
		}
	})
}

// TestFormatFloat: MySQL's text of DOUBLE and FLOAT values, as MariaDB
// 10.11 prints them (the same code as MySQL's).
func TestFormatFloat(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		bits int
		want string
	}{
		{1e-5, 64, "0.00001"}, {1.5e300, 64, "1.5e300"}, {123456789012345678, 64, "1.2345678901234568e17"},
		{0.1, 64, "0.1"}, {1e15, 64, "1e15"}, {1e14, 64, "100000000000000"}, {-2.5e-10, 64, "-0.00000000025"},
		{100, 64, "100"}, {1e-7, 64, "0.0000001"}, {0.30000000000000004, 64, "0.30000000000000004"},
		{123456789012345.6, 64, "123456789012345.6"}, {1234567890123456, 64, "1.234567890123456e15"},
		{0.000012345678901234, 64, "0.000012345678901234"}, {1.0 / 3, 64, "0.3333333333333333"},
		{1e100, 64, "1e100"}, {1.7976931348623157e308, 64, "1.7976931348623157e308"}, {5e-324, 64, "5e-324"},
		{1e-15, 64, "0.000000000000001"}, {1e-16, 64, "1e-16"}, {1.25e-15, 64, "0.00000000000000125"},
		{-1.5e300, 64, "-1.5e300"}, {0, 64, "0"},
		{float64(float32(1.2345678)), 32, "1.23457"}, {float64(float32(1e20)), 32, "1e20"},
		{float64(float32(0.1)), 32, "0.1"}, {float64(float32(1e-10)), 32, "0.0000000001"},
	} {
		if got := FormatFloat(tc.v, tc.bits); got != tc.want {
			t.Errorf("FormatFloat(%v, %d) = %q, want %q", tc.v, tc.bits, got, tc.want)
		}
	}
}

// TestShowCreateEnumDefault: SHOW CREATE TABLE writes ENUM and SET
// defaults by name, quotes included, and the statement makes the same
// table again.
func TestShowCreateEnumDefault(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, "CREATE TABLE e (k ENUM('a','it''s') NOT NULL DEFAULT 'it''s', s SET('x','y','z') DEFAULT 'x,z', n ENUM('1','2') DEFAULT '1', m INT DEFAULT 7)")
	want := "[e CREATE TABLE `e` (\n" +
		"  `k` enum('a','it''s') NOT NULL DEFAULT 'it''s',\n" +
		"  `s` set('x','y','z') DEFAULT 'x,z',\n" +
		"  `n` enum('1','2') DEFAULT '1',\n" +
		"  `m` int DEFAULT '7'\n" +
		") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_bin]"
	env.check(ctx, "SHOW CREATE TABLE e", want)
	env.exec(ctx, "INSERT INTO e () VALUES ()")
	env.check(ctx, "SELECT CAST(k AS CHAR), CAST(s AS CHAR), CAST(n AS CHAR), m FROM e", "[it's x,z 1 7]")
}

// TestDatabaseCollation: CREATE DATABASE with a character set or
// collation (as dumps write it) keeps it; tables made without their own
// take it; ALTER DATABASE changes it; SHOW CREATE DATABASE and
// information_schema show it; a commit keeps it.
func TestDatabaseCollation(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := env.session("")
	env.exec(ctx, "CREATE DATABASE /*!32312 IF NOT EXISTS*/ `l1` /*!40100 DEFAULT CHARACTER SET latin1 COLLATE latin1_swedish_ci */")
	env.exec(ctx, "CREATE DATABASE ai DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_ai_ci")
	env.exec(ctx, "CREATE DATABASE plain")
	env.check(ctx, "SELECT SCHEMA_NAME, DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME IN ('l1', 'ai', 'plain') ORDER BY 1",
		"[ai utf8mb4 utf8mb4_0900_ai_ci] [l1 latin1 latin1_swedish_ci] [plain utf8mb4 utf8mb4_0900_bin]")
	env.check(ctx, "SHOW CREATE DATABASE l1", "[l1 CREATE DATABASE `l1` /*!40100 DEFAULT CHARACTER SET latin1 COLLATE latin1_swedish_ci */]")
	ctx.SetCurrentDatabase("ai")
	env.exec(ctx, "CREATE TABLE t (s VARCHAR(10) PRIMARY KEY)")
	env.exec(ctx, "INSERT INTO t VALUES ('a')")
	env.check(ctx, "SELECT s FROM t WHERE s = 'A'", "[a]") // accent- and case-insensitive
	env.check(ctx, "SELECT @@collation_database", "[utf8mb4_0900_ai_ci]")
	env.exec(ctx, "CALL dolt_commit('-Am', 'with a collation')")
	env.exec(ctx, "ALTER DATABASE ai COLLATE utf8mb4_0900_bin")
	env.check(ctx, "SELECT DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'ai'", "[utf8mb4_0900_bin]")
	env.exec(ctx, "CALL dolt_reset('--hard')")
	env.check(ctx, "SELECT DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'ai'", "[utf8mb4_0900_ai_ci]")
}
