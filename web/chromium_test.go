package web

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The console driven by headless Chromium: what a user sees is checked
// against what SQL answers. With VERSO_REQUIRE_CHROMIUM=1 (CI) a missing
// browser fails the test instead of skipping it. Screenshots go to
// $VERSO_SCREENSHOTS (default: a folder in the temporary folder, whose
// path the test logs); -update-screenshots also writes them to
// docs/console/, which the README shows.

var updateScreenshots = flag.Bool("update-screenshots", false, "write the console's screenshots to docs/console/")

// chromium returns the path of a Chromium or Chrome binary.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("VERSO_REQUIRE_CHROMIUM") == "1" {
		t.Fatal("no chromium found, and VERSO_REQUIRE_CHROMIUM=1 (install Debian's chromium package)")
	}
	t.Skip("no chromium found (install Debian's chromium package); set VERSO_REQUIRE_CHROMIUM=1 to fail instead")
	return ""
}

// screenshots returns the folder screenshots go to, and a function that
// saves one by name.
func screenshots(t *testing.T) func(name string, png []byte) {
	dir := os.Getenv("VERSO_SCREENSHOTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "verso-console-screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots in %s", dir)
	return func(name string, png []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
		if *updateScreenshots {
			if err := os.MkdirAll("../docs/console", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join("../docs/console", name+".png"), png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// richHistory adds to history more branches, commits and events, so that
// the pages have something to show.
func richHistory() []string {
	stmts := append([]string{}, history...)
	stmts = append(stmts, "USE d", "CALL dolt_checkout('-b', 'reports')")
	for i := 0; i < 6; i++ {
		stmts = append(stmts, fmt.Sprintf("INSERT INTO t (id, v, n) VALUES (%d, 'r%d', %d)", 100+i, i, i),
			fmt.Sprintf("CALL dolt_commit('-am', 'reports: row %d')", 100+i))
	}
	stmts = append(stmts, "CALL dolt_checkout('main')")
	types := []string{"Created", "Paid", "Shipped", "Cancelled"}
	for i := 0; i < 40; i++ {
		cat := []string{"order", "user", "payment"}[i%3]
		var evs []string
		for j := 0; j <= i%4; j++ {
			evs = append(evs, fmt.Sprintf(`{"event_type": "%s", "data": {"n": %d}}`, types[(i+j)%4], j))
		}
		stmts = append(stmts, fmt.Sprintf("CALL dolt_append_events('%s-%d', 'any', '[%s]')", cat, i%9, strings.Join(evs, ", ")))
	}
	stmts = append(stmts, "CALL dolt_commit('-Am', 'events: a batch of orders, users and payments')",
		"UPDATE t SET n = n * 10 WHERE id < 3", "CALL dolt_commit('-am', 'scale n')",
		"CALL dolt_merge('reports', '--no-ff', '-m', 'Merge reports')")
	return stmts
}

func TestConsoleInChromium(t *testing.T) {
	path := chromium(t)
	save := screenshots(t)
	f := newFixture(t, richHistory()...)
	f.exec(t, "USE d")

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.WindowSize(1360, 860), chromedp.Flag("disable-dev-shm-usage", true))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	do := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	shot := func(name string) {
		t.Helper()
		do("settle", chromedp.Sleep(150*time.Millisecond))
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		save(name, png)
	}
	base := f.con.URL()
	// goHash moves the page to another view (a change of the URL's
	// fragment, which loads no page).
	goHash := func(h string) {
		t.Helper()
		must(t, ctx, "go to "+h, chromedp.Evaluate[string]("location.hash = '"+h+"'"))
	}

	// A wrong password is refused, on the login page.
	do("wrong password",
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(chromedp.ID("user")),
		chromedp.SendKeys(chromedp.ID("user"), "reader"),
		chromedp.SendKeys(chromedp.ID("password"), "wrong"),
		chromedp.Click(chromedp.ID("login-submit")),
		chromedp.WaitVisible(chromedp.ID("login-error")))
	errText := must(t, ctx, "the login error", chromedp.Text(chromedp.ID("login-error")))
	if !strings.Contains(errText, "Access denied for user 'reader'") {
		t.Errorf("login error: %q", errText)
	}
	shot("login-refused")

	// The history graph: its nodes and edges are dolt_log's commits and
	// parents.
	do("login",
		chromedp.SetValue(chromedp.ID("password"), "rpw"),
		chromedp.Click(chromedp.ID("login-submit")),
		chromedp.WaitVisible(chromedp.CSS(`#sentinel[data-done="true"]`)))
	nodes := must(t, ctx, "the graph's nodes", chromedp.Evaluate[[][]string](`[...document.querySelectorAll('#graph circle.node')].map(c => [c.dataset.hash, c.dataset.parents])`))
	edges := must(t, ctx, "the graph's edges", chromedp.Evaluate[[]string](`[...document.querySelectorAll('#graph path.edge')].map(p => p.dataset.from + '>' + p.dataset.to)`))
	var wantEdges []string
	log := f.rows(t, "SELECT commit_hash, parents FROM dolt_log('--all', '--parents')")
	if len(nodes) != len(log) {
		t.Fatalf("the graph has %d nodes; dolt_log --all has %d commits", len(nodes), len(log))
	}
	for i, r := range log {
		parents := splitParents(r[1])
		if nodes[i][0] != r[0] || nodes[i][1] != strings.Join(parents, ",") {
			t.Errorf("node %d: %v; dolt_log: %v", i, nodes[i], r)
		}
		for _, p := range parents {
			wantEdges = append(wantEdges, r[0]+">"+p)
		}
	}
	slices.Sort(edges)
	slices.Sort(wantEdges)
	if !slices.Equal(edges, wantEdges) {
		t.Errorf("the graph's edges:\n%v\ndolt_log's parents:\n%v", edges, wantEdges)
	}
	shot("history")

	// A commit: its diff of t is dolt_diff's, with the changed cells
	// marked.
	feature := f.rows(t, "SELECT hash FROM dolt_branches WHERE name = 'feature'")[0][0]
	do("open a commit",
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`#commits .crow[data-hash="%s"]`, feature))),
		chromedp.WaitVisible(chromedp.ID("commit-hash")))
	hashText := must(t, ctx, "the commit's hash", chromedp.Text(chromedp.ID("commit-hash")))
	do("open the diff of t",
		chromedp.Click(chromedp.CSS(`details[data-table="t"] > summary`)),
		chromedp.WaitVisible(chromedp.CSS(`table.diff[data-table="t"] tbody tr`)))
	if hashText != feature {
		t.Errorf("the commit page shows %q; want %s", hashText, feature)
	}
	diffRows := must(t, ctx, "the diff", chromedp.Evaluate[[]string](`[...document.querySelectorAll('table.diff[data-table="t"] tbody tr')].map(tr =>
		tr.children[1].textContent + ' ' + tr.className + ':' + [...tr.querySelectorAll('td.changed')].map(td => td.dataset.col).join(','))`))
	var wantRows []string
	// The system table dolt_diff_t, by the commit: its diff against its
	// parent.
	for _, r := range f.rows(t, "SELECT diff_type, from_v <=> to_v, from_n <=> to_n, COALESCE(to_id, from_id) FROM dolt_diff_t WHERE to_commit = '"+feature+"'") {
		changed := []string{}
		if r[0] == "modified" {
			if r[1] == "0" {
				changed = append(changed, "v")
			}
			if r[2] == "0" {
				changed = append(changed, "n")
			}
		}
		wantRows = append(wantRows, r[3]+" "+r[0]+":"+strings.Join(changed, ","))
	}
	slices.Sort(diffRows)
	slices.Sort(wantRows)
	if !slices.Equal(diffRows, wantRows) {
		t.Errorf("the commit's diff rows: %v; dolt_diff_t: %v", diffRows, wantRows)
	}
	shot("commit")

	// The Stats page: the matrix is dolt_event_stats' pairs.
	goHash("#/d/events")
	do("open the stats", chromedp.WaitVisible(chromedp.ID("matrix")))
	cells := must(t, ctx, "the matrix", chromedp.Evaluate[[][]string](`[...document.querySelectorAll('#matrix td.cell[data-category]')].map(td => [td.dataset.category, td.dataset.type, td.dataset.count])`))
	total := must(t, ctx, "the count of events", chromedp.Text(chromedp.ID("stat-events")))
	streams := must(t, ctx, "the count of streams", chromedp.Text(chromedp.ID("stat-streams")))
	pairs := map[string]string{}
	var cats, types []string
	for _, r := range f.rows(t, "SELECT category, event_type, event_count FROM dolt_event_stats") {
		switch {
		case r[0] == "NULL" && r[1] == "NULL":
			if strings.ReplaceAll(total, ",", "") != r[2] {
				t.Errorf("the page counts %s events; dolt_event_stats %s", total, r[2])
			}
		case r[1] == "NULL":
			cats = append(cats, r[0])
		case r[0] == "NULL":
			types = append(types, r[1])
		default:
			pairs[r[0]+"/"+r[1]] = r[2]
		}
	}
	if len(cells) != len(cats)*len(types) {
		t.Errorf("the matrix has %d cells; dolt_event_stats has %d categories and %d types", len(cells), len(cats), len(types))
	}
	for _, c := range cells {
		want := pairs[c[0]+"/"+c[1]]
		if want == "" {
			want = "0"
		}
		if c[2] != want {
			t.Errorf("the matrix says %s/%s: %s; dolt_event_stats: %s", c[0], c[1], c[2], want)
		}
	}
	if want := f.rows(t, "SELECT COUNT(*) FROM dolt_streams")[0][0]; streams != want {
		t.Errorf("the page counts %s streams; dolt_streams has %s", streams, want)
	}
	shot("events")

	// The query box.
	goHash("#/d/query")
	do("run a query",
		chromedp.WaitVisible(chromedp.ID("sql")),
		chromedp.SetValue(chromedp.ID("sql"), "SELECT id, v, n FROM t ORDER BY id"),
		chromedp.Click(chromedp.ID("run")),
		chromedp.WaitVisible(chromedp.ID("query-table")))
	got := must(t, ctx, "the query's rows", chromedp.Evaluate[[][]string](`[...document.querySelectorAll('#query-table tbody tr')].map(tr => [...tr.children].map(td => td.textContent))`))
	want := f.rows(t, "SELECT id, v, n FROM t ORDER BY id")
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("the query box shows %v; SQL gives %v", got, want)
	}
	shot("query")

	// The dark theme, and logging out.
	goHash("#/d/history")
	do("dark theme", chromedp.WaitVisible(chromedp.CSS(`#sentinel[data-done="true"]`)),
		chromedp.Click(chromedp.ID("theme-toggle")))
	shot("history-dark")
	do("light theme again", chromedp.Click(chromedp.ID("theme-toggle")))
	do("log out", chromedp.Click(chromedp.ID("logout")), chromedp.WaitVisible(chromedp.ID("user")))
	loc := must(t, ctx, "the location", chromedp.Location())
	if !strings.HasSuffix(loc, "/login") {
		t.Errorf("after logout the browser is at %s", loc)
	}
}

// must runs an action that gives a value, failing the test on an error.
func must[T any](t *testing.T, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}
