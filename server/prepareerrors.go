package server

import (
	"encoding/binary"
	"net"
	"regexp"
	"sync"

	"github.com/dolthub/vitess/go/mysql"

	"github.com/verso-db/verso/sqlserver"
)

// Syntax errors in prepared statements.
//
// The protocol library parses the text of a COM_STMT_PREPARE itself
// before the server's handler sees it, and answers a syntax error with
// 1105 (ER_UNKNOWN_ERROR, HY000) and the parser's own message. MySQL
// answers 1064 (ER_PARSE_ERROR, 42000), as the server does for the same
// text sent as a query. prepareConn, under the library on each client
// connection, follows the client's packets far enough to know the text of
// the last COM_STMT_PREPARE, and rewrites the library's answer to it when
// that answer is one such error packet, with the message sqlserver.MapError
// gives a syntax error of a query.
//
// Packets (MySQL client/server protocol, no compression):
//
//	+-----------------+-----+---------+
//	| payload length  | seq | payload |
//	+-----------------+-----+---------+
//	  3 bytes, LE       1
//
// A COM_STMT_PREPARE payload is 0x16 then the statement's text. An error
// packet's payload is 0xff, the error number (2 bytes, LE), '#', the
// SQLSTATE (5 bytes) and the message.
//
// A client that switches to TLS (tls.go) sends first an SSL request, a
// packet of exactly 32 bytes (a handshake response is longer: it goes on
// with the user name); from then on the bytes under the library are
// encrypted, and prepareConn passes them through untouched. On such a
// connection a syntax error of a prepared statement keeps the library's
// 1105.

const (
	comStmtPrepare = 0x16
	// maxPrepareText bounds the statement text kept: a longer statement
	// keeps its first maxPrepareText bytes (the error's "near" text is
	// then found only when it lies within them).
	maxPrepareText = 1 << 16
	// sslRequestLen is the payload length of a client's SSL request.
	sslRequestLen = 32
)

// libraryPrepareSyntax matches the library's message for a syntax error
// in a prepared statement.
var libraryPrepareSyntax = regexp.MustCompile(`syntax error at position (\d+)(?: near '(.*)')?`)

// prepareConn is a client connection that rewrites the library's syntax
// errors of COM_STMT_PREPARE (see above). Reads come from the connection's
// handler, and from the engine's disconnect watcher during long queries.
type prepareConn struct {
	net.Conn

	mu sync.Mutex // guards what follows

	// The packet being read: its header so far, then how many payload
	// bytes remain.
	hdr     [4]byte
	nhdr    int
	remain  int
	first   bool   // the next payload byte is the packet's first
	capture bool   // the packet is a COM_STMT_PREPARE: keep its text
	text    []byte // the text of the last COM_STMT_PREPARE
	pending bool   // that prepare has not been answered yet
	held    []byte // the answer's first packet, while incomplete
	packets int    // the client's packets begun so far, up to 2
	tls     bool   // the client asked for TLS: pass everything through
}

// maxHeldPacket bounds the packet Write holds: a longer one is no error
// packet (those are short) and passes on as it comes.
const maxHeldPacket = 1 << 18

func newPrepareConn(c net.Conn) *prepareConn { return &prepareConn{Conn: c} }

func (c *prepareConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	if !c.tls {
		c.scan(p[:n])
	}
	c.mu.Unlock()
	return n, err
}

// scan follows the packets in b, the next bytes from the client.
func (c *prepareConn) scan(b []byte) {
	for len(b) > 0 {
		if c.remain == 0 {
			k := copy(c.hdr[c.nhdr:], b)
			c.nhdr += k
			b = b[k:]
			if c.nhdr < 4 {
				return
			}
			c.nhdr = 0
			c.remain = int(c.hdr[0]) | int(c.hdr[1])<<8 | int(c.hdr[2])<<16
			c.first, c.capture = true, false
			if c.packets < 2 {
				c.packets++
			}
			if c.packets == 1 && c.hdr[3] == 1 && c.remain == sslRequestLen {
				c.tls = true
				return
			}
			continue
		}
		k := min(len(b), c.remain)
		chunk := b[:k]
		if c.first {
			c.first = false
			// A command starts a sequence (seq 0); a prepare's text follows its command byte.
			if c.hdr[3] == 0 {
				c.pending = false
				if chunk[0] == comStmtPrepare {
					c.capture, c.pending = true, true
					c.text = c.text[:0]
				}
			}
			if c.capture {
				chunk = chunk[1:]
			}
		}
		if c.capture && len(c.text) < maxPrepareText {
			c.text = append(c.text, chunk[:min(len(chunk), maxPrepareText-len(c.text))]...)
		}
		c.remain -= k
		b = b[k:]
	}
}

// Write passes p on, except while the answer to a COM_STMT_PREPARE is
// being written: that answer's first packet (which the library may write
// in pieces, header then payload) is held until whole, then passed on,
// rewritten if it is the library's syntax error.
func (c *prepareConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	if !c.pending {
		c.mu.Unlock()
		return c.Conn.Write(p)
	}
	c.held = append(c.held, p...)
	if len(c.held) < 4 {
		c.mu.Unlock()
		return len(p), nil
	}
	n := 4 + (int(c.held[0]) | int(c.held[1])<<8 | int(c.held[2])<<16)
	if len(c.held) < n && n <= maxHeldPacket {
		c.mu.Unlock()
		return len(p), nil
	}
	out := c.held
	if len(out) >= n {
		if q, ok := c.rewrite(out[:n]); ok {
			out = append(q, out[n:]...)
		}
	}
	c.pending, c.held = false, nil
	c.mu.Unlock()
	if _, err := c.Conn.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// rewrite returns p with its error packet replaced by MySQL's syntax
// error, when p is exactly one error packet 1105 holding the library's
// syntax error.
func (c *prepareConn) rewrite(p []byte) ([]byte, bool) {
	if len(p) < 4+9 || p[4] != 0xff || p[7] != '#' {
		return nil, false
	}
	n := int(p[0]) | int(p[1])<<8 | int(p[2])<<16
	if n != len(p)-4 || binary.LittleEndian.Uint16(p[5:7]) != mysql.ERUnknownError {
		return nil, false
	}
	m := libraryPrepareSyntax.FindString(string(p[13:]))
	if m == "" {
		return nil, false
	}
	se := sqlserver.MapError(mysql.NewSQLError(mysql.ERUnknownError, mysql.SSUnknownSQLState, "%s", m), string(c.text))
	msg := se.Message
	if len(msg) > 1<<16 {
		msg = msg[:1<<16]
	}
	payload := make([]byte, 0, 9+len(msg))
	payload = append(payload, 0xff)
	payload = binary.LittleEndian.AppendUint16(payload, uint16(se.Num))
	payload = append(payload, '#')
	payload = append(payload, se.State...)
	payload = append(payload, msg...)
	q := make([]byte, 4, 4+len(payload))
	q[0], q[1], q[2], q[3] = byte(len(payload)), byte(len(payload)>>8), byte(len(payload)>>16), p[3]
	return append(q, payload...), true
}
