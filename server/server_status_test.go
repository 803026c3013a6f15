package server

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// MySQL's status flags (mysql_com.h), as a client reads them off the wire.
const (
	statusInTrans         = 0x0001 // SERVER_STATUS_IN_TRANS
	statusAutocommit      = 0x0002 // SERVER_STATUS_AUTOCOMMIT
	statusMoreResults     = 0x0008 // SERVER_MORE_RESULTS_EXISTS
	statusInTransReadOnly = 0x2000 // SERVER_STATUS_IN_TRANS_READONLY
)

// rawConn is a minimal MySQL protocol client that keeps what the server's
// packets say about the session: the status flags of the handshake, of the
// OK packet that ends authentication, and of each OK and EOF packet. The
// drivers hide those flags (go-sql-driver/mysql reads them only for its
// own use), so the test speaks the protocol itself.
type rawConn struct {
	c   net.Conn
	r   *bufio.Reader
	seq byte
	// handshake and login are the status flags of the server's handshake
	// packet and of the OK packet that accepted the login.
	handshake, login uint16
}

// rawResult is what the server answered to one statement: an error, or
// the status flags of its OK packet (or of the EOF packet that ends its
// rows).
type rawResult struct {
	status uint16
	err    string // "1234: message" for an error packet
}

func (c *rawConn) readPacket() ([]byte, error) {
	var h [4]byte
	if _, err := io.ReadFull(c.r, h[:]); err != nil {
		return nil, err
	}
	n := int(h[0]) | int(h[1])<<8 | int(h[2])<<16
	c.seq = h[3] + 1
	p := make([]byte, n)
	_, err := io.ReadFull(c.r, p)
	return p, err
}

func (c *rawConn) writePacket(p []byte) error {
	h := []byte{byte(len(p)), byte(len(p) >> 8), byte(len(p) >> 16), c.seq}
	c.seq++
	_, err := c.c.Write(append(h, p...))
	return err
}

// lenEnc skips a length-encoded integer at p[i:] and returns the index
// after it.
func lenEnc(p []byte, i int) int {
	switch p[i] {
	case 0xfc:
		return i + 3
	case 0xfd:
		return i + 4
	case 0xfe:
		return i + 9
	}
	return i + 1
}

// okStatus returns the status flags of an OK packet.
func okStatus(p []byte) uint16 {
	i := lenEnc(p, 1) // affected rows
	i = lenEnc(p, i)  // last insert id
	return binary.LittleEndian.Uint16(p[i:])
}

// dialRaw logs in to addr as root without a password (the test servers'
// superuser) with the capabilities of a usual client: protocol 4.1,
// transactions, multiple statements and results, and EOF packets (not
// CLIENT_DEPRECATE_EOF).
func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(30 * time.Second))
	c := &rawConn{c: nc, r: bufio.NewReader(nc)}
	hs, err := c.readPacket()
	if err != nil {
		t.Fatal(err)
	}
	// Protocol version 10: version, NUL, connection id (4), auth data
	// (8), filler (1), capabilities (2), character set (1), status (2).
	if hs[0] != 10 {
		t.Fatalf("handshake protocol version %d", hs[0])
	}
	i := 1 + bytes.IndexByte(hs[1:], 0) + 1 + 4 + 8 + 1 + 2 + 1
	c.handshake = binary.LittleEndian.Uint16(hs[i:])

	const (
		clientLongPassword   = 0x00000001
		clientProtocol41     = 0x00000200
		clientTransactions   = 0x00002000
		clientSecureConn     = 0x00008000
		clientMultiStmts     = 0x00010000
		clientMultiResults   = 0x00020000
		clientPluginAuth     = 0x00080000
		clientPSMultiResults = 0x00040000
	)
	caps := uint32(clientLongPassword | clientProtocol41 | clientTransactions | clientSecureConn |
		clientMultiStmts | clientMultiResults | clientPSMultiResults | clientPluginAuth)
	resp := binary.LittleEndian.AppendUint32(nil, caps)
	resp = binary.LittleEndian.AppendUint32(resp, 1<<24)
	resp = append(resp, 33) // utf8_general_ci
	resp = append(resp, make([]byte, 23)...)
	resp = append(resp, "root\x00"...)
	resp = append(resp, 0) // an empty auth response: no password
	resp = append(resp, "mysql_native_password\x00"...)
	if err := c.writePacket(resp); err != nil {
		t.Fatal(err)
	}
	for {
		p, err := c.readPacket()
		if err != nil {
			t.Fatal(err)
		}
		switch p[0] {
		case 0x00:
			c.login = okStatus(p)
			return c
		case 0xfe: // auth switch: answer with an empty password again
			if err := c.writePacket(nil); err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("login: unexpected packet %q", p)
		}
	}
}

// query sends q (a COM_QUERY, which may hold several statements) and
// returns one result per statement.
func (c *rawConn) query(t *testing.T, q string) []rawResult {
	t.Helper()
	c.seq = 0
	if err := c.writePacket(append([]byte{0x03}, q...)); err != nil {
		t.Fatal(err)
	}
	var out []rawResult
	for {
		p, err := c.readPacket()
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var r rawResult
		switch p[0] {
		case 0x00:
			r.status = okStatus(p)
		case 0xff:
			r.err = fmt.Sprintf("%d: %s", binary.LittleEndian.Uint16(p[1:]), p[9:])
			return append(out, r) // an error ends the statements
		default:
			// A result set: columns, EOF, rows, EOF (warnings, status).
			eofs := 0
			for eofs < 2 {
				if p, err = c.readPacket(); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				if p[0] == 0xff {
					r.err = fmt.Sprintf("%d: %s", binary.LittleEndian.Uint16(p[1:]), p[9:])
					return append(out, r)
				}
				if p[0] == 0xfe && len(p) < 9 {
					eofs++
				}
			}
			r.status = binary.LittleEndian.Uint16(p[3:])
		}
		out = append(out, r)
		if r.status&statusMoreResults == 0 {
			return out
		}
	}
}

// TestServerStatusFlags reads the status flags off the wire: the handshake
// and the login's OK packet say autocommit is on (as @@autocommit says);
// then each OK and EOF packet follows the session as MySQL's do:
// SERVER_STATUS_AUTOCOMMIT with autocommit, SERVER_STATUS_IN_TRANS while a
// transaction is open (explicit, or implicit with autocommit off),
// SERVER_STATUS_IN_TRANS_READONLY in a read-only one, and
// SERVER_MORE_RESULTS_EXISTS on every result of a multi-statement query but
// the last.
func TestServerStatusFlags(t *testing.T) {
	s, _ := startTestServer(t, t.TempDir(), Config{})
	setup := connect(t, s, "root", "", "")
	for _, q := range []string{
		"CREATE DATABASE shop",
		"CREATE TABLE shop.items (id INT PRIMARY KEY, qty INT)",
		"INSERT INTO shop.items VALUES (1, 10)",
	} {
		if _, err := setup.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	c := dialRaw(t, s.Addr())
	if c.handshake != statusAutocommit {
		t.Errorf("handshake status flags %#04x, want %#04x (autocommit)", c.handshake, statusAutocommit)
	}
	if c.login != statusAutocommit {
		t.Errorf("login OK status flags %#04x, want %#04x (autocommit)", c.login, statusAutocommit)
	}
	for _, step := range []struct {
		query string
		want  []uint16
	}{
		{"USE shop", []uint16{statusAutocommit}},
		{"SELECT qty FROM items", []uint16{statusAutocommit}},
		{"UPDATE items SET qty = 11 WHERE id = 1", []uint16{statusAutocommit}},
		{"BEGIN", []uint16{statusAutocommit | statusInTrans}},
		{"UPDATE items SET qty = 12 WHERE id = 1", []uint16{statusAutocommit | statusInTrans}},
		{"COMMIT", []uint16{statusAutocommit}},
		{"START TRANSACTION READ ONLY", []uint16{statusAutocommit | statusInTrans | statusInTransReadOnly}},
		{"SELECT qty FROM items", []uint16{statusAutocommit | statusInTrans | statusInTransReadOnly}},
		{"ROLLBACK", []uint16{statusAutocommit}},
		{"SET autocommit = 0", []uint16{0}},
		{"UPDATE items SET qty = 13 WHERE id = 1", []uint16{statusInTrans}},
		{"ROLLBACK", []uint16{0}},
		{"SELECT qty FROM items; UPDATE items SET qty = 14 WHERE id = 1; COMMIT",
			[]uint16{statusInTrans | statusMoreResults, statusInTrans | statusMoreResults, 0}},
		{"SET autocommit = 1", []uint16{statusAutocommit}},
		{"SELECT 1; SELECT 2", []uint16{statusAutocommit | statusMoreResults, statusAutocommit}},
	} {
		got := c.query(t, step.query)
		var flags []uint16
		for _, r := range got {
			if r.err != "" {
				t.Fatalf("%s: error %s", step.query, r.err)
			}
			flags = append(flags, r.status)
		}
		if fmt.Sprintf("%#04x", flags) != fmt.Sprintf("%#04x", step.want) {
			t.Errorf("%s: status flags %#04x, want %#04x", step.query, flags, step.want)
		}
	}
	var qty int
	if err := setup.QueryRow("SELECT qty FROM shop.items WHERE id = 1").Scan(&qty); err != nil || qty != 14 {
		t.Fatalf("qty %d, %v: want 14", qty, err)
	}
}

// pythonWithPyMySQL returns a python3 that can import pymysql: the one on
// PATH, else the system's (Debian's package installs into /usr/bin/python3's
// modules, which a python3 of pyenv or a virtualenv earlier on PATH does not
// see).
func pythonWithPyMySQL() (string, error) {
	var err error
	for _, name := range []string{"python3", "/usr/bin/python3"} {
		var py string
		if py, err = exec.LookPath(name); err != nil {
			continue
		}
		if err = exec.Command(py, "-c", "import pymysql").Run(); err == nil {
			return py, nil
		}
	}
	return "", err
}

// TestServerPyMySQLRollback runs PyMySQL (Debian's python3-pymysql), which
// trusts the status flags: with its default autocommit=False it sends SET
// autocommit = 0 only if the server says autocommit is on, and rollback()
// must undo an UPDATE. Without python3 or pymysql the test is skipped, or
// fails when VERSO_REQUIRE_PYMYSQL=1 (as in CI).
func TestServerPyMySQLRollback(t *testing.T) {
	py, err := pythonWithPyMySQL()
	if err != nil {
		if os.Getenv("VERSO_REQUIRE_PYMYSQL") == "1" {
			t.Fatalf("python3 with pymysql is needed and VERSO_REQUIRE_PYMYSQL=1: install it (apt-get install python3-pymysql): %v", err)
		}
		t.Skipf("python3 with pymysql is not available (apt-get install python3-pymysql); set VERSO_REQUIRE_PYMYSQL=1 to fail instead: %v", err)
	}
	s, _ := startTestServer(t, t.TempDir(), Config{})
	setup := connect(t, s, "root", "", "")
	for _, q := range []string{
		"CREATE DATABASE shop",
		"CREATE TABLE shop.items (id INT PRIMARY KEY, qty INT)",
		"INSERT INTO shop.items VALUES (1, 10)",
	} {
		if _, err := setup.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	host, port, _ := net.SplitHostPort(s.Addr())
	script := `
import sys, pymysql
conn = pymysql.connect(host=sys.argv[1], port=int(sys.argv[2]), user="root", password="", database="shop")
print("autocommit", conn.get_autocommit())
with conn.cursor() as cur:
    cur.execute("SELECT @@autocommit")
    print("@@autocommit", cur.fetchone()[0])
    cur.execute("UPDATE items SET qty = 99 WHERE id = 1")
conn.rollback()
with conn.cursor() as cur:
    cur.execute("SELECT qty FROM items WHERE id = 1")
    print("after rollback", cur.fetchone()[0])
    cur.execute("UPDATE items SET qty = 20 WHERE id = 1")
conn.commit()
conn.close()
`
	path := filepath.Join(t.TempDir(), "rollback.py")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, path, host, port).CombinedOutput()
	if err != nil {
		t.Fatalf("pymysql: %v\n%s", err, out)
	}
	if want := "autocommit False\n@@autocommit 0\nafter rollback 10\n"; string(out) != want {
		t.Errorf("pymysql printed\n%s\nwant\n%s", out, want)
	}
	var qty int
	if err := setup.QueryRow("SELECT qty FROM shop.items WHERE id = 1").Scan(&qty); err != nil || qty != 20 {
		t.Fatalf("after pymysql's commit: qty %d, %v, want 20", qty, err)
	}
	if strings.Contains(string(out), "Traceback") {
		t.Fatal(string(out))
	}
}
