package web

import (
	"context"
	"crypto/tls"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/dolthub/go-mysql-server/sql/mysql_db"

	"github.com/verso-db/verso/server"
	"github.com/verso-db/verso/sqlserver"
)

//go:embed assets
var assetFS embed.FS

// Config configures the console.
type Config struct {
	// Address is host:port to listen on; port 0 picks a free one.
	Address string
	// TLS, when set, serves the console over HTTPS.
	TLS *tls.Config
	// QueryTimeout bounds each statement the console runs; zero means
	// DefaultQueryTimeout.
	QueryTimeout time.Duration
	// Logger receives the console's log; nil discards it.
	Logger *slog.Logger
}

// DefaultQueryTimeout bounds a statement of the console when Config sets
// no QueryTimeout.
const DefaultQueryTimeout = 30 * time.Second

// ErrNoPassword is returned by New for a console on an address other
// than loopback while the server's superuser has no password.
var ErrNoPassword = errors.New("web: superuser without a password on a non-loopback address")

// Console is the web console of a server.
type Console struct {
	emb      *sqlserver.Embedded
	users    *mysql_db.MySQLDb
	ln       net.Listener
	http     *http.Server
	sessions *sessions
	connIDs  atomic.Uint32
	timeout  time.Duration
	log      *slog.Logger
	secure   bool
	assets   fs.FS
}

// New returns the console of s, listening on cfg.Address; Serve serves
// it. Its sessions are clients of s: the same accounts, grants and
// limits as the SQL port's.
func New(s *server.Server, cfg Config) (*Console, error) {
	ln, err := net.Listen("tcp", cfg.Address)
	if err != nil {
		return nil, fmt.Errorf("the web console cannot listen on %s: %w (is another server using the port? choose another with --http)", cfg.Address, err)
	}
	if s.PasswordlessSuperuser() && !isLoopback(ln.Addr()) {
		ln.Close()
		return nil, fmt.Errorf("%w: refusing to serve the web console on %s while the superuser has no password, since anyone who can reach it would get every privilege; give the superuser a password or serve the console on loopback only (--http 127.0.0.1:8080)", ErrNoPassword, ln.Addr())
	}
	if cfg.QueryTimeout <= 0 {
		cfg.QueryTimeout = DefaultQueryTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	sub, err := fs.Sub(assetFS, "assets")
	if err != nil {
		ln.Close()
		return nil, err
	}
	emb := s.Embedded()
	c := &Console{emb: emb, users: emb.Engine.Analyzer.Catalog.MySQLDb, ln: ln, sessions: newSessions(),
		timeout: cfg.QueryTimeout, log: cfg.Logger, secure: cfg.TLS != nil, assets: sub}
	if cfg.TLS != nil {
		c.ln = tls.NewListener(ln, cfg.TLS)
	}
	c.http = &http.Server{Handler: c.routes(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		ErrorLog: slog.NewLogLogger(cfg.Logger.Handler(), slog.LevelDebug)}
	return c, nil
}

// Addr returns the address the console listens on.
func (c *Console) Addr() string { return c.ln.Addr().String() }

// URL returns the console's address as a URL.
func (c *Console) URL() string {
	if c.secure {
		return "https://" + c.Addr()
	}
	return "http://" + c.Addr()
}

// Serve serves the console until Close; it returns nil after Close.
func (c *Console) Serve() error {
	err := c.http.Serve(c.ln)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Close stops the console, waiting up to five seconds for the requests
// being answered.
func (c *Console) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return c.http.Shutdown(ctx)
}

// routes is the console's HTTP surface (see doc.go).
func (c *Console) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /login", c.loginPage)
	mux.HandleFunc("POST /login", c.login)
	mux.HandleFunc("POST /logout", c.withSession(c.logout))
	mux.Handle("GET /assets/", http.StripPrefix("/assets/", http.FileServerFS(c.assets)))
	mux.HandleFunc("GET /{$}", c.withSession(c.index))
	api := map[string]func(w http.ResponseWriter, r *http.Request, ws *webSession){
		"GET /api/session":                c.apiSession,
		"GET /api/databases":              c.apiDatabases,
		"GET /api/db/{db}/refs":           c.apiRefs,
		"GET /api/db/{db}/log":            c.apiLog,
		"GET /api/db/{db}/search":         c.apiSearch,
		"GET /api/db/{db}/commit/{rev}":   c.apiCommit,
		"GET /api/db/{db}/compare":        c.apiCompare,
		"GET /api/db/{db}/diff":           c.apiDiff,
		"GET /api/db/{db}/events/stats":   c.apiEventStats,
		"GET /api/db/{db}/events/streams": c.apiStreams,
		"GET /api/db/{db}/events/read":    c.apiReadEvents,
		"POST /api/db/{db}/query":         c.apiQuery,
	}
	for pattern, h := range api {
		mux.HandleFunc(pattern, c.withSession(h))
	}
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		if c.session(r) == nil {
			writeJSONError(w, http.StatusUnauthorized, "log in first")
			return
		}
		writeJSONError(w, http.StatusNotFound, "no such API: "+r.Method+" "+r.URL.Path)
	})
	return securityHeaders(mux)
}

// securityHeaders sets on every answer the headers that keep the
// console's pages from being framed, sniffed or fed foreign scripts.
func securityHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("Referrer-Policy", "same-origin")
		h.ServeHTTP(w, r)
	})
}

// session returns the request's live session, or nil.
func (c *Console) session(r *http.Request) *webSession {
	ck, err := r.Cookie(sessionCookie)
	if err != nil {
		return nil
	}
	ws := c.sessions.get(ck.Value)
	if ws == nil {
		return nil
	}
	if !accountLive(c.users, ws.acct) {
		c.sessions.remove(ck.Value)
		return nil
	}
	return ws
}

// withSession answers only requests of a logged-in session, and, for
// those that can change anything (every method but GET and HEAD), only
// with the session's CSRF token and from the console's own pages.
func (c *Console) withSession(h func(http.ResponseWriter, *http.Request, *webSession)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ws := c.session(r)
		isAPI := len(r.URL.Path) >= 5 && r.URL.Path[:5] == "/api/"
		if ws == nil {
			if isAPI || r.Method != http.MethodGet {
				writeJSONError(w, http.StatusUnauthorized, "log in first")
				return
			}
			http.Redirect(w, r, "/login", http.StatusSeeOther)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			token := r.Header.Get(csrfHeader)
			if token == "" {
				token = r.PostFormValue("csrf")
			}
			if !tokensEqual(token, ws.csrf) || !sameOrigin(r) {
				writeJSONError(w, http.StatusForbidden, "the request lacks the session's CSRF token or comes from another site; reload the console and try again")
				return
			}
		}
		if isAPI {
			w.Header().Set("Cache-Control", "no-store")
		}
		h(w, r, ws)
	}
}

// index serves the console's page.
func (c *Console) index(w http.ResponseWriter, r *http.Request, ws *webSession) {
	w.Header().Set("Cache-Control", "no-store")
	http.ServeFileFS(w, r, c.assets, "index.html")
}

// writeJSON answers v as JSON.
func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	if err := json.NewEncoder(w).Encode(v); err != nil {
		// The client went away; nothing to tell it.
		return
	}
}

// apiError is the body of every failed API request.
type apiError struct {
	Error string    `json:"error"`
	SQL   *SQLError `json:"sql,omitempty"`
}

func writeJSONError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(apiError{Error: msg})
}

// writeErr answers err: a statement's error as the SQL error it is (403
// for an access error, 400 for others), anything else as 500.
func (c *Console) writeErr(w http.ResponseWriter, err error) {
	var se *SQLError
	if errors.As(err, &se) {
		status := http.StatusBadRequest
		switch se.Num {
		case 1044, 1045, 1142, 1143, 1227, 1370:
			status = http.StatusForbidden
		case 1049, 1146, 1105:
			if se.Num != 1105 {
				status = http.StatusNotFound
			}
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(apiError{Error: se.Error(), SQL: se})
		return
	}
	var be badRequest
	if errors.As(err, &be) {
		writeJSONError(w, http.StatusBadRequest, be.msg)
		return
	}
	c.log.Error("web console request failed", "error", err)
	writeJSONError(w, http.StatusInternalServerError, "internal error in the server; see its log")
}

// badRequest is an API request with a bad parameter.
type badRequest struct{ msg string }

func (b badRequest) Error() string { return b.msg }

// isLoopback reports whether a listening address only accepts local
// clients.
func isLoopback(a net.Addr) bool {
	t, ok := a.(*net.TCPAddr)
	return ok && t.IP.IsLoopback()
}
