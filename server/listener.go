package server

import (
	"encoding/binary"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dolthub/vitess/go/mysql"
)

// limitListener counts the connections it accepted that are still open,
// turns away those beyond max with MySQL's error 1040 (instead of the bare
// close of the protocol library), bounds each connection's handshake by
// connectTimeout, and can close them all at shutdown.
//
// The handshake's bound is a deadline on the connection's reads and writes
// from the moment it is accepted until connHandler.ConnectionAuthenticated
// ends it (endHandshake): the protocol library sets its read and write
// timeouts (ReadTimeout, WriteTimeout: hours, for idle clients) before each
// read and write, and limitConn holds them to the handshake's deadline
// meanwhile. A socket that never completes a handshake is so closed after
// connectTimeout, and its place is free for a real client.
type limitListener struct {
	net.Listener
	max            int
	connectTimeout time.Duration

	mu    sync.Mutex
	conns map[*limitConn]struct{}
	done  chan struct{} // closed when conns becomes empty during closeConns
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		l.mu.Lock()
		if l.max > 0 && len(l.conns) >= l.max {
			l.mu.Unlock()
			go refuse(c, l.max)
			continue
		}
		lc := &limitConn{Conn: newPrepareConn(c), l: l}
		l.conns[lc] = struct{}{}
		l.mu.Unlock()
		hs := time.Now().Add(l.connectTimeout)
		lc.handshake.Store(hs.UnixNano())
		lc.Conn.SetDeadline(hs)
		return lc, nil
	}
}

// refuse sends a client MySQL's "Too many connections" error in place of
// the handshake (as mysqld does) and closes the connection.
func refuse(c net.Conn, max int) {
	msg := fmt.Sprintf("Too many connections (the server allows %d; raise --max-connections or close idle clients)", max)
	p := make([]byte, 4, 4+3+len(msg))
	p = append(p, 0xff)
	p = binary.LittleEndian.AppendUint16(p, mysql.ERConCount)
	p = append(p, msg...)
	n := len(p) - 4
	p[0], p[1], p[2], p[3] = byte(n), byte(n>>8), byte(n>>16), 0
	c.SetWriteDeadline(time.Now().Add(5 * time.Second))
	c.Write(p)
	c.Close()
}

// closeConns closes every open connection and waits up to timeout for
// their handlers to close them too.
func (l *limitListener) closeConns(timeout time.Duration) bool {
	l.mu.Lock()
	if len(l.conns) == 0 {
		l.mu.Unlock()
		return true
	}
	l.done = make(chan struct{})
	done := l.done
	for c := range l.conns {
		c.Conn.Close()
	}
	l.mu.Unlock()
	select {
	case <-done:
		return true
	case <-time.After(timeout):
		return false
	}
}

// limitConn is a connection of a limitListener.
type limitConn struct {
	net.Conn
	l    *limitListener
	once sync.Once
	// handshake is the deadline of the handshake (Unix nanoseconds) until
	// it ends, then 0.
	handshake atomic.Int64
}

// clamp returns deadline t held to the handshake's deadline, if the
// handshake is not over.
func (c *limitConn) clamp(t time.Time) time.Time {
	if hs := c.handshake.Load(); hs != 0 && (t.IsZero() || t.UnixNano() > hs) {
		return time.Unix(0, hs)
	}
	return t
}

func (c *limitConn) SetDeadline(t time.Time) error      { return c.Conn.SetDeadline(c.clamp(t)) }
func (c *limitConn) SetReadDeadline(t time.Time) error  { return c.Conn.SetReadDeadline(c.clamp(t)) }
func (c *limitConn) SetWriteDeadline(t time.Time) error { return c.Conn.SetWriteDeadline(c.clamp(t)) }

// endHandshake lifts the handshake's deadline from the connection of c, a
// client that has logged in.
func endHandshake(c *mysql.Conn) {
	for nc := c.Conn; nc != nil; nc = innerConn(nc) {
		if lc, ok := nc.(*limitConn); ok {
			lc.handshake.Store(0)
			lc.Conn.SetDeadline(time.Time{})
			return
		}
	}
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.conns, c)
		if len(c.l.conns) == 0 && c.l.done != nil {
			close(c.l.done)
			c.l.done = nil
		}
		c.l.mu.Unlock()
	})
	return err
}
