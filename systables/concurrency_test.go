package systables_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/verso-db/verso/commitgraph"
)

// TestConcurrentCommits reads dolt_log and looks commits up while another
// goroutine commits to main: every scan is the whole log of one head.
func TestConcurrentCommits(t *testing.T) {
	en := newEnv(t)
	build(t, en.graph, 11, 40)
	bg := context.Background()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 50; i++ {
			head, err := en.graph.Head(bg, "main")
			if err != nil {
				t.Error(err)
				return
			}
			c, err := en.graph.ReadCommit(bg, head)
			if err != nil {
				t.Error(err)
				return
			}
			_, err = en.graph.CommitRoot(bg, commitgraph.CommitOptions{Branch: "main", Root: c.Root, ExpectedHead: head,
				Meta: commitgraph.Meta{Author: commitgraph.Signature{Name: "w", Email: "w@x"}, Message: "concurrent"}})
			if err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := en.session("d")
			for j := 0; j < 15; j++ {
				rows, err := en.query(ctx, "SELECT * FROM dolt_log")
				if err != nil {
					t.Error(err)
					return
				}
				head := rows[0][0].(string)
				// The refs column moves with main's head: compare the rest.
				got := dropField(formatRows(rows), 7)
				addr, _ := parse(head)
				want := dropField(modelLog(t, en.graph, addr), 7)
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("scan of %d rows is not the log of its first commit (%d rows)", len(got), len(want))
					return
				}
				one, err := en.query(ctx, "SELECT commit_hash FROM dolt_log WHERE commit_hash = '"+head+"'")
				if err != nil || len(one) != 1 {
					t.Errorf("lookup of %s: %v, %v", head, one, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// dropField removes field i of each formatted row.
func dropField(rows []string, i int) []string {
	out := make([]string, len(rows))
	for j, r := range rows {
		f := strings.Split(r, "|")
		out[j] = strings.Join(append(f[:i:i], f[i+1:]...), "|")
	}
	return out
}
