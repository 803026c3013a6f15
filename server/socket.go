package server

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/dolthub/vitess/go/netutil"
)

// The Unix socket.
//
// With Config.Socket the server also listens on a Unix socket at that
// path (MySQL's and Dolt's --socket), which clients given the host
// localhost use (mysql -h localhost -S PATH, PyMySQL's unix_socket=,
// go-sql-driver's unix(PATH)). Its clients come from the host localhost,
// so the superuser of a server on a loopback address can log in through
// it; the socket counts as a secure transport for
// Config.RequireSecureTransport, as MySQL's does, and connections on it
// share MaxConnections and ConnectTimeout with the TCP ones. The socket
// file is made with mode 0777, as mysqld's (who may connect is the
// accounts' business), and removed at Close.
//
// A socket file left by a server that died is replaced; one that a live
// server answers on is not: New fails with ErrSocketInUse, or, with
// Config.SocketIfFree (how cmd/verso uses Dolt's default /tmp/mysql.sock),
// the server goes on without a socket and logs why.

// ErrSocketInUse is returned by New when another server answers on the
// Unix socket's path.
var ErrSocketInUse = errors.New("server: another server is listening on the Unix socket")

// listenUnix listens on the Unix socket at path, replacing a stale socket
// file there.
func listenUnix(path string) (*net.UnixListener, error) {
	if runtime.GOOS == "windows" {
		return nil, errors.New("a Unix socket is not available on Windows; leave --socket out")
	}
	addr := &net.UnixAddr{Name: path, Net: "unix"}
	ln, err := net.ListenUnix("unix", addr)
	if err != nil && errors.Is(err, syscall.EADDRINUSE) {
		if c, derr := net.DialTimeout("unix", path, time.Second); derr == nil {
			c.Close()
			return nil, fmt.Errorf("%w at %s: stop it, or give another --socket", ErrSocketInUse, path)
		}
		// Nothing answers: a file left by a server that died, which
		// is removed only if it is a socket.
		if fi, serr := os.Lstat(path); serr == nil && fi.Mode()&os.ModeSocket != 0 {
			if rerr := os.Remove(path); rerr == nil {
				ln, err = net.ListenUnix("unix", addr)
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("listening on the Unix socket %s: %w", path, err)
	}
	// Close removes the file (the listener made it).
	ln.SetUnlinkOnClose(true)
	if err := os.Chmod(path, 0o777); err != nil {
		ln.Close()
		return nil, fmt.Errorf("listening on the Unix socket %s: %w", path, err)
	}
	return ln, nil
}

// multiListener accepts the connections of several listeners, the TCP one
// first (whose address it reports).
type multiListener struct {
	lns   []net.Listener
	conns chan acceptResult
	done  chan struct{}
	once  sync.Once
}

type acceptResult struct {
	c   net.Conn
	err error
}

func newMultiListener(lns ...net.Listener) *multiListener {
	m := &multiListener{lns: lns, conns: make(chan acceptResult), done: make(chan struct{})}
	for _, ln := range lns {
		go m.accept(ln)
	}
	return m
}

func (m *multiListener) accept(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil && !errors.Is(err, net.ErrClosed) {
			// Out of file descriptors and the like: try again
			// shortly, as the TCP listener alone would not.
			select {
			case <-time.After(50 * time.Millisecond):
				continue
			case <-m.done:
				return
			}
		}
		select {
		case m.conns <- acceptResult{c, err}:
			if err != nil {
				return
			}
		case <-m.done:
			if c != nil {
				c.Close()
			}
			return
		}
	}
}

func (m *multiListener) Accept() (net.Conn, error) {
	select {
	case r := <-m.conns:
		if r.err != nil {
			// One listener failed: close them all, so the server stops
			// rather than serving on half its addresses.
			m.Close()
			return nil, r.err
		}
		return r.c, nil
	case <-m.done:
		return nil, net.ErrClosed
	}
}

func (m *multiListener) Close() error {
	var err error
	m.once.Do(func() {
		close(m.done)
		for _, ln := range m.lns {
			err = errors.Join(err, ln.Close())
		}
	})
	return err
}

func (m *multiListener) Addr() net.Addr { return m.lns[0].Addr() }

// isUnixConn reports whether c, or the connection it wraps, is a Unix
// socket's.
func isUnixConn(c net.Conn) bool {
	for ; c != nil; c = innerConn(c) {
		if _, ok := c.(*net.UnixConn); ok {
			return true
		}
	}
	return false
}

// innerConn returns the connection that c, a layer the server or the
// protocol library put over a client's connection, wraps; nil for the
// bottom one.
func innerConn(c net.Conn) net.Conn {
	switch x := c.(type) {
	case *netutil.ConnWithTimeouts:
		return x.Conn
	case *tls.Conn:
		return x.NetConn()
	case *limitConn:
		return x.Conn
	case *prepareConn:
		return x.Conn
	}
	return nil
}
