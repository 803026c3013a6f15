package sqlserver

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
)

// randomJSON returns a random JSON value of at most depth levels: objects
// and arrays of few members over a small alphabet of keys (one that needs
// quoting in a path among them), so that two draws share much.
func randomJSON(r *rand.Rand, depth int) any {
	n := r.Intn(7)
	if depth == 0 && n >= 5 {
		n = r.Intn(5)
	}
	switch n {
	case 0:
		return nil
	case 1:
		return r.Intn(3) == 0
	case 2:
		return float64(r.Intn(4))
	case 3:
		return []string{"x", "y", "1"}[r.Intn(3)]
	case 4:
		return r.Float64() < 0.5
	case 5:
		arr := make([]any, r.Intn(4))
		for i := range arr {
			arr[i] = randomJSON(r, depth-1)
		}
		return arr
	default:
		obj := map[string]any{}
		for _, k := range []string{"a", "b", "c d", "e"} {
			if r.Intn(2) == 0 {
				obj[k] = randomJSON(r, depth-1)
			}
		}
		return obj
	}
}

func sqlQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// TestJSONDiffApplies: for random pairs of documents, setting each path
// dolt_json_diff lists as added or modified to its to_value, then removing
// those it lists as removed (last first), turns from into to; and a
// document has no differences with itself.
func TestJSONDiffApplies(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	r := rand.New(rand.NewSource(7))
	for i := 0; i < 300; i++ {
		fb, _ := json.Marshal(randomJSON(r, 3))
		tb, _ := json.Marshal(randomJSON(r, 3))
		from, to := string(fb), string(tb)
		rows := env.exec(ctx, fmt.Sprintf("SELECT diff_type, path, CAST(to_value AS CHAR) FROM dolt_json_diff(%s, %s)", sqlQuote(from), sqlQuote(to)))
		doc := "CAST(" + sqlQuote(from) + " AS JSON)"
		var removed []string
		for _, row := range rows {
			typ, path := row[0].(string), row[1].(string)
			switch typ {
			case "removed":
				removed = append(removed, path)
			case "added", "modified":
				if path == "$" {
					doc = "CAST(" + sqlQuote(row[2].(string)) + " AS JSON)"
				} else {
					doc = fmt.Sprintf("JSON_SET(%s, %s, CAST(%s AS JSON))", doc, sqlQuote(path), sqlQuote(row[2].(string)))
				}
			default:
				t.Fatalf("diff type %q", typ)
			}
		}
		for j := len(removed) - 1; j >= 0; j-- {
			doc = fmt.Sprintf("JSON_REMOVE(%s, %s)", doc, sqlQuote(removed[j]))
		}
		got := env.exec(ctx, fmt.Sprintf("SELECT %s = CAST(%s AS JSON)", doc, sqlQuote(to)))
		if len(got) != 1 || fmt.Sprint(got[0][0]) != "true" && fmt.Sprint(got[0][0]) != "1" {
			t.Fatalf("from %s to %s: the diff %v applied gives %v", from, to, rows, env.exec(ctx, "SELECT CAST("+doc+" AS CHAR)"))
		}
		if same := env.exec(ctx, fmt.Sprintf("SELECT * FROM dolt_json_diff(%s, %s)", sqlQuote(from), sqlQuote(from))); len(same) != 0 {
			t.Fatalf("%s against itself: %v", from, same)
		}
	}
	if _, err := env.query(ctx, "SELECT * FROM dolt_json_diff('{}')"); err == nil || !sql.ErrInvalidArgumentNumber.Is(err) {
		t.Fatalf("one argument: %v", err)
	}
}
