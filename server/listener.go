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
// With backLog (Dolt's back_log), up to that many connections beyond max
// wait, each up to waitTimeout (Dolt's max_connections_timeout), for a
// connection to close; one that gets no place in time gets the 1040. A
// waiting connection is handed to the protocol library at once, and its
// first read or write (the library's handshake) waits for its place.
//
// The handshake's bound is a deadline on the connection's reads and writes
// from the moment it has a place until connHandler.ConnectionAuthenticated
// ends it (endHandshake): the protocol library sets its read and write
// timeouts (ReadTimeout, WriteTimeout: hours, for idle clients) before each
// read and write, and limitConn holds them to the handshake's deadline
// meanwhile. A socket that never completes a handshake is so closed after
// connectTimeout, and its place is free for a real client.
type limitListener struct {
	net.Listener
	max            int
	backLog        int
	waitTimeout    time.Duration
	connectTimeout time.Duration

	mu     sync.Mutex
	conns  map[*limitConn]struct{} // every open connection, waiting or not
	active int                     // those with a place
	freed  chan struct{}           // closed, and replaced, when a place frees
	done   chan struct{}           // closed when conns becomes empty during closeConns
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		lc := &limitConn{Conn: newPrepareConn(c), l: l, closed: make(chan struct{})}
		l.mu.Lock()
		if l.max > 0 && l.active >= l.max {
			if len(l.conns)-l.active >= l.backLog {
				l.mu.Unlock()
				go refuse(c, l.max)
				continue
			}
			lc.waiting.Store(true)
			l.conns[lc] = struct{}{}
			l.mu.Unlock()
			return lc, nil
		}
		l.conns[lc] = struct{}{}
		l.active++
		l.mu.Unlock()
		lc.startHandshake()
		return lc, nil
	}
}

// admit waits for a place for c, a connection of the back log; it fails,
// having sent the client 1040, when none frees within the listener's
// waitTimeout.
func (c *limitConn) admit() error {
	c.admitMu.Lock()
	defer c.admitMu.Unlock()
	if !c.waiting.Load() {
		return nil
	}
	l := c.l
	timer := time.NewTimer(l.waitTimeout)
	defer timer.Stop()
	for {
		l.mu.Lock()
		if l.active < l.max {
			l.active++
			c.waiting.Store(false)
			l.mu.Unlock()
			c.startHandshake()
			return nil
		}
		if l.freed == nil {
			l.freed = make(chan struct{})
		}
		freed := l.freed
		l.mu.Unlock()
		select {
		case <-freed:
		case <-c.closed:
			return net.ErrClosed
		case <-timer.C:
			refuse(c.Conn, l.max)
			c.Close()
			return net.ErrClosed
		}
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
	l      *limitListener
	once   sync.Once
	closed chan struct{} // closed by Close
	// handshake is the deadline of the handshake (Unix nanoseconds) until
	// it ends, then 0.
	handshake atomic.Int64
	// waiting is set while the connection waits in the back log for a
	// place (admit).
	waiting atomic.Bool
	admitMu sync.Mutex
}

// startHandshake starts the handshake's deadline of a connection that has
// its place.
func (c *limitConn) startHandshake() {
	hs := time.Now().Add(c.l.connectTimeout)
	c.handshake.Store(hs.UnixNano())
	c.Conn.SetDeadline(hs)
}

func (c *limitConn) Read(p []byte) (int, error) {
	if c.waiting.Load() {
		if err := c.admit(); err != nil {
			return 0, err
		}
	}
	return c.Conn.Read(p)
}

func (c *limitConn) Write(p []byte) (int, error) {
	if c.waiting.Load() {
		if err := c.admit(); err != nil {
			return 0, err
		}
	}
	return c.Conn.Write(p)
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
		close(c.closed)
		c.l.mu.Lock()
		delete(c.l.conns, c)
		if !c.waiting.Load() {
			c.l.active--
			if c.l.freed != nil {
				close(c.l.freed)
				c.l.freed = nil
			}
		}
		if len(c.l.conns) == 0 && c.l.done != nil {
			close(c.l.done)
			c.l.done = nil
		}
		c.l.mu.Unlock()
	})
	return err
}
