package server

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"testing"

	"github.com/dolthub/vitess/go/mysql"
)

// chunkConn is a net.Conn whose reads return the given chunks in turn and
// whose writes are kept.
type chunkConn struct {
	net.Conn
	chunks [][]byte
	out    bytes.Buffer
}

func (c *chunkConn) Read(p []byte) (int, error) {
	if len(c.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.chunks[0])
	if c.chunks[0] = c.chunks[0][n:]; len(c.chunks[0]) == 0 {
		c.chunks = c.chunks[1:]
	}
	return n, nil
}

func (c *chunkConn) Write(p []byte) (int, error) { return c.out.Write(p) }

func packet(seq byte, payload []byte) []byte {
	p := []byte{byte(len(payload)), byte(len(payload) >> 8), byte(len(payload) >> 16), seq}
	return append(p, payload...)
}

func errPacket(seq byte, num uint16, state, msg string) []byte {
	b := []byte{0xff}
	b = binary.LittleEndian.AppendUint16(b, num)
	b = append(append(append(b, '#'), state...), msg...)
	return packet(seq, b)
}

// TestPrepareConn feeds a query packet, then a COM_STMT_PREPARE, to
// prepareConn in reads split at every place, and writes the library's
// error answer split at every place: the answer comes out as MySQL's
// syntax error, and other packets come out unchanged.
func TestPrepareConn(t *testing.T) {
	query := "SELECT * FROM t\nWHERE id = ? AND"
	in := append(packet(0, append([]byte{0x03}, "SELECT 1"...)), packet(0, append([]byte{comStmtPrepare}, query...))...)
	answer := errPacket(1, mysql.ERUnknownError, "HY000", "Code: INVALID_ARGUMENT\nsyntax error at position 31 near 'AND'")
	want := errPacket(1, mysql.ERParseError, "42000",
		"You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near 'AND' at line 2")
	other := packet(1, []byte{0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00})
	for cut := 0; cut <= len(in); cut++ {
		for wcut := 0; wcut <= len(answer); wcut += 3 {
			cc := &chunkConn{chunks: [][]byte{append([]byte(nil), in[:cut]...), append([]byte(nil), in[cut:]...)}}
			c := newPrepareConn(cc)
			buf := make([]byte, 7)
			for {
				if _, err := c.Read(buf); err != nil {
					break
				}
			}
			if string(c.text) != query || !c.pending {
				t.Fatalf("cut %d: text %q pending %v", cut, c.text, c.pending)
			}
			for _, part := range [][]byte{answer[:wcut], answer[wcut:], other} {
				if n, err := c.Write(part); err != nil || n != len(part) {
					t.Fatal(n, err)
				}
			}
			if got := cc.out.Bytes(); !bytes.Equal(got, append(append([]byte(nil), want...), other...)) {
				t.Fatalf("cut %d/%d: wrote %q", cut, wcut, got)
			}
		}
	}
	// An answer that is not the library's syntax error, and an answer to a
	// command that is not a prepare, pass unchanged.
	for _, tc := range []struct {
		in     []byte
		answer []byte
	}{
		{packet(0, append([]byte{comStmtPrepare}, "SELECT ?"...)), errPacket(1, mysql.ERNoSuchTable, "42S02", "table not found")},
		{packet(0, append([]byte{comStmtPrepare}, "SELECT ?"...)), other},
		{packet(0, append([]byte{0x03}, "SELEC"...)), answer},
	} {
		cc := &chunkConn{chunks: [][]byte{tc.in}}
		c := newPrepareConn(cc)
		c.Read(make([]byte, 64))
		c.Write(tc.answer)
		if !bytes.Equal(cc.out.Bytes(), tc.answer) {
			t.Fatalf("%q rewritten to %q", tc.answer, cc.out.Bytes())
		}
	}
}

// TestPrepareConnTLS: after a client's SSL request, prepareConn passes
// every byte through, even bytes that read as a COM_STMT_PREPARE and an
// answer that reads as the library's syntax error (under TLS they are
// ciphertext, which must not be held or rewritten).
func TestPrepareConnTLS(t *testing.T) {
	sslRequest := packet(1, make([]byte, sslRequestLen))
	binary.LittleEndian.PutUint32(sslRequest[4:], mysql.CapabilityClientSSL|mysql.CapabilityClientProtocol41)
	looksLikePrepare := packet(0, append([]byte{comStmtPrepare}, "SELEC 1"...))
	cc := &chunkConn{chunks: [][]byte{sslRequest, looksLikePrepare}}
	c := newPrepareConn(cc)
	got, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, append(append([]byte(nil), sslRequest...), looksLikePrepare...)) {
		t.Fatal("reads changed")
	}
	answer := errPacket(1, mysql.ERUnknownError, "HY000", "syntax error at position 6 near 'SELEC'")
	for _, b := range [][]byte{answer[:2], answer[2:]} {
		if n, err := c.Write(b); err != nil || n != len(b) {
			t.Fatalf("write: %d, %v", n, err)
		}
		if !bytes.HasSuffix(cc.out.Bytes(), b) {
			t.Fatal("a write was held or changed after the SSL request")
		}
	}
	if !bytes.Equal(cc.out.Bytes(), answer) {
		t.Errorf("writes: %q, want %q", cc.out.Bytes(), answer)
	}
}
