package web

import (
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The console's timings (docs/BENCHMARKS.md): the server's time for the
// history page's first page of commits, for a page deep in the history,
// and for the Stats page's figures; and, in headless Chromium, the time
// from the start of a page load to the first contentful paint and to the
// view drawn (the marks verso-history-ready and verso-stats-ready).
//
//	go test ./web -run '^$' -bench BenchmarkConsole -benchtime 20x -timeout 60m
//
// Building the 100,000-commit history takes minutes.

// historyFixture makes database d with n commits: a mainline with a
// branch of three commits merged back every 500, so the graph has lanes
// and merges.
func historyFixture(b *testing.B, n int) *fixture {
	f := newFixture(b, "CREATE DATABASE d", "USE d", "CREATE TABLE t (id INT PRIMARY KEY, v INT)", "CALL dolt_commit('-Am', 'table')")
	for i := 1; i < n; {
		if i%500 == 0 && i+5 < n {
			br := fmt.Sprintf("b%d", i)
			f.exec(b, "CALL dolt_checkout('-b', '"+br+"')")
			for j := 0; j < 3; j++ {
				f.exec(b, fmt.Sprintf("INSERT INTO t VALUES (%d, %d)", 10_000_000+i*10+j, j), fmt.Sprintf("CALL dolt_commit('-am', '%s %d')", br, j))
			}
			f.exec(b, "CALL dolt_checkout('main')", fmt.Sprintf("INSERT INTO t VALUES (%d, 0)", i), "CALL dolt_commit('-am', 'main')",
				"CALL dolt_merge('"+br+"', '--no-ff', '-m', 'merge "+br+"')")
			i += 5
			continue
		}
		f.exec(b, fmt.Sprintf("INSERT INTO t VALUES (%d, %d)", i, i), fmt.Sprintf("CALL dolt_commit('-am', 'c%d')", i))
		i++
	}
	return f
}

func BenchmarkConsoleHistory(b *testing.B) {
	for _, n := range []int{100, 10_000, 100_000} {
		b.Run(fmt.Sprintf("commits=%d", n), func(b *testing.B) {
			start := time.Now()
			f := historyFixture(b, n)
			b.Logf("%d commits made in %v", n, time.Since(start).Round(time.Second))
			c := newClient(b, f)
			if st := c.login("root", ""); st != http.StatusSeeOther {
				b.Fatalf("login: %d", st)
			}
			b.Run("first-page", func(b *testing.B) {
				for b.Loop() {
					var page struct{ Commits []logCommit }
					if st := c.get("/api/db/d/log?limit=100", &page); st != http.StatusOK || len(page.Commits) != min(100, n) {
						b.Fatalf("%d, %d commits", st, len(page.Commits))
					}
				}
			})
			// The cursor of the page half-way down the history.
			next := ""
			for listed := 0; listed < n/2; listed += 1000 {
				var page struct{ Next string }
				c.get("/api/db/d/log?limit=1000&after="+next, &page)
				next = page.Next
			}
			b.Run("middle-page", func(b *testing.B) {
				for b.Loop() {
					var page struct{ Commits []logCommit }
					if st := c.get("/api/db/d/log?limit=100&after="+next, &page); st != http.StatusOK || len(page.Commits) == 0 {
						b.Fatalf("%d, %d commits", st, len(page.Commits))
					}
				}
			})
			b.Run("chromium", func(b *testing.B) {
				chromiumTimings(b, f, "#/d/history", "verso-history-ready")
			})
		})
	}
}

func BenchmarkConsoleStats(b *testing.B) {
	const events, batch = 1_000_000, 2000
	f := newFixture(b, "CREATE DATABASE d", "USE d")
	start := time.Now()
	types := []string{"Created", "Paid", "Shipped", "Cancelled", "Refunded", "Updated", "Archived", "Noted"}
	for i := 0; i < events/batch; i++ {
		var evs []string
		for j := 0; j < batch; j++ {
			evs = append(evs, fmt.Sprintf(`{"event_type": "%s", "data": {}}`, types[(i+j)%len(types)]))
		}
		stream := fmt.Sprintf("%s-%d", []string{"order", "user", "payment", "shipment", "invoice", "cart", "review", "ticket", "refund", "audit"}[i%10], i)
		f.exec(b, fmt.Sprintf("CALL dolt_append_events('%s', 'any', '[%s]')", stream, strings.Join(evs, ", ")))
	}
	f.exec(b, "CALL dolt_commit('-Am', 'events')")
	b.Logf("%d events appended in %v", events, time.Since(start).Round(time.Second))
	c := newClient(b, f)
	c.login("root", "")
	b.Run("events=1000000/stats", func(b *testing.B) {
		for b.Loop() {
			var s struct{ Rows [][]*string }
			if st := c.get("/api/db/d/events/stats", &s); st != http.StatusOK || len(s.Rows) != 1+10+8+80 {
				b.Fatalf("%d, %d rows", st, len(s.Rows))
			}
		}
	})
	b.Run("events=1000000/chromium", func(b *testing.B) {
		chromiumTimings(b, f, "#/d/events", "verso-stats-ready")
	})
}

// chromiumTimings loads the console's view at hash b.N times in headless
// Chromium, logged in as root, and reports the mean time from the start
// of the load to the first contentful paint and to the mark ready.
func chromiumTimings(b *testing.B, f *fixture, hash, ready string) {
	path := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		b.Skip("no chromium")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.WindowSize(1360, 860))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	base := f.con.URL()
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/login"), chromedp.WaitVisible(chromedp.ID("user")),
		chromedp.SendKeys(chromedp.ID("user"), "root"), chromedp.Click(chromedp.ID("login-submit")),
		chromedp.WaitVisible(chromedp.ID("db-select"))); err != nil {
		b.Fatal(err)
	}
	var paint, drawn float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := chromedp.Do(ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/"+hash)); err != nil {
			b.Fatal(err)
		}
		expr := fmt.Sprintf(`new Promise(done => { const poll = () => {
			const r = performance.getEntriesByName(%q)[0], p = performance.getEntriesByName('first-contentful-paint')[0];
			if (r && p) done([p.startTime, r.startTime]); else setTimeout(poll, 5); }; poll(); })`, ready)
		t, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](expr, chromedp.EvalAwaitPromise))
		if err != nil {
			b.Fatal(err)
		}
		paint += t[0]
		drawn += t[1]
	}
	b.ReportMetric(paint/float64(b.N), "ms-first-paint")
	b.ReportMetric(drawn/float64(b.N), "ms-drawn")
}
