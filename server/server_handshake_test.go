package server

import (
	"net"
	"testing"
	"time"
)

// TestServerHandshakeTimeout: sockets that never send a handshake are
// closed after the connect timeout, so they cannot keep clients out; a
// logged-in client is not held to it.
func TestServerHandshakeTimeout(t *testing.T) {
	s, _ := startTestServer(t, t.TempDir(), Config{MaxConnections: 3, ConnectTimeout: time.Second})
	var silent []net.Conn
	for range 3 {
		c, err := net.Dial("tcp", s.Addr())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		silent = append(silent, c)
	}
	time.Sleep(100 * time.Millisecond)
	db := connect(t, s, "root", "", "")
	if num, _ := mysqlErrNum(db.Ping()); num != 1040 {
		t.Fatalf("with 3 silent sockets: want 1040 at first, got %d", num)
	}
	start := time.Now()
	var err error
	for time.Since(start) < 5*time.Second {
		if err = db.Ping(); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("a real client is still kept out %v after the silent sockets connected: %v", time.Since(start), err)
	}
	t.Logf("a real client got in after %v", time.Since(start))
	// The silent sockets were closed by the server.
	silent[0].SetReadDeadline(time.Now().Add(time.Second))
	if _, err := silent[0].Read(make([]byte, 1024)); err != nil {
		t.Fatalf("reading the handshake: %v", err)
	}
	buf := make([]byte, 1024)
	for {
		if _, err := silent[0].Read(buf); err != nil {
			break
		}
	}
	// A client that logged in may idle beyond the connect timeout.
	c, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	time.Sleep(1500 * time.Millisecond)
	var one int
	if err := c.QueryRowContext(t.Context(), "SELECT 1").Scan(&one); err != nil {
		t.Fatalf("an idle logged-in client after the connect timeout: %v", err)
	}
}
