package server

import (
	"log/slog"
	"testing"

	"github.com/verso-db/verso/internal/logtest"
)

// TestServerLog: a server logs each connection and statement at Debug
// (a failed one with its error number), and nothing above Debug for a
// healthy session with a client's error.
func TestServerLog(t *testing.T) {
	recs := logtest.Records{Level: slog.LevelDebug}
	s, stop := startTestServer(t, t.TempDir(), Config{Logger: slog.New(&recs)})
	db := connect(t, s, "root", "", "")
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("SELECT 1"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("SELECT * FROM nowhere.t"); err == nil {
		t.Fatal("a query of a missing database succeeded")
	}
	db.Close()
	stop()
	for _, msg := range []string{"connection opened", "logged in", "statement", "connection closed"} {
		got := recs.Find(msg)
		if len(got) == 0 {
			t.Errorf("no %q line:\n%s", msg, &recs)
			continue
		}
		for _, r := range got {
			if r.Level != slog.LevelDebug || r.Attrs["conn"] == "" {
				t.Errorf("%q at %v with %v; want Debug with conn", msg, r.Level, r.Attrs)
			}
		}
	}
	var ok, failed bool
	for _, r := range recs.Find("statement") {
		ok = ok || r.Attrs["query"] == "SELECT 1" && r.Attrs["duration"] != "" && r.Attrs["error"] == ""
		failed = failed || r.Attrs["query"] == "SELECT * FROM nowhere.t" && r.Attrs["errno"] == "1049" && r.Attrs["error"] != ""
	}
	if !ok || !failed {
		t.Errorf("the statement lines lack SELECT 1 with its duration or the failed one with errno 1049:\n%s", &recs)
	}
	for _, r := range recs.All() {
		if r.Level > slog.LevelDebug {
			t.Errorf("a healthy session logged %v %q %v", r.Level, r.Msg, r.Attrs)
		}
	}
}
