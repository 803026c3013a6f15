package web

import (
	"crypto/rand"
	"crypto/sha1"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/dolthub/go-mysql-server/sql/mysql_db"
	"github.com/dolthub/vitess/go/mysql"
)

// Logins and sessions.
//
// The console has the accounts of SQL (CREATE USER, GRANT): a login form
// checks the account's password as the server checks a client's, for the
// host the browser connects from (127.0.0.1 is localhost, as on the SQL
// port). A login makes a session: a random 256-bit token in a cookie
// (HttpOnly, SameSite=Strict, Secure over TLS) that the server keeps in
// memory only, so a restart logs everyone out. A session ends after
// SessionIdle without a request, after SessionMax in all, at logout, and
// when its account is dropped or locked.
//
// Every request that can change anything (POST: logout, the query box) must
// carry the session's CSRF token in the X-CSRF-Token header (or the csrf
// form field), and an Origin header, when the browser sends one, must be
// the console's own. The login form is protected the same way by a token
// of its own, given in a cookie and in the form (login CSRF).

// account is who a session acts as: the account's user and host, as the
// user database keys it.
type account struct {
	User string `json:"user"`
	Host string `json:"host"`
}

// webSession is a logged-in browser.
type webSession struct {
	acct    account
	csrf    string
	created time.Time
	seen    time.Time
}

// SessionIdle and SessionMax bound a session's life: an hour without a
// request, twelve hours in all.
const (
	SessionIdle = time.Hour
	SessionMax  = 12 * time.Hour
	// maxSessions bounds the sessions held at once; past it the oldest
	// is dropped.
	maxSessions = 10000
)

const (
	sessionCookie = "verso_session"
	loginCookie   = "verso_login"
	csrfHeader    = "X-CSRF-Token"
)

// sessions holds the logged-in sessions, by token.
type sessions struct {
	mu   sync.Mutex
	byID map[string]*webSession
	now  func() time.Time
}

func newSessions() *sessions {
	return &sessions{byID: map[string]*webSession{}, now: time.Now}
}

// newToken returns 32 random bytes as base64url.
func newToken() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("web: the system's random source failed: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// add starts a session for acct and returns its token.
func (s *sessions) add(acct account) (string, *webSession) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if len(s.byID) >= maxSessions {
		s.expireLocked(now)
	}
	for len(s.byID) >= maxSessions {
		var oldest string
		var t time.Time
		for id, ws := range s.byID {
			if oldest == "" || ws.seen.Before(t) {
				oldest, t = id, ws.seen
			}
		}
		delete(s.byID, oldest)
	}
	ws := &webSession{acct: acct, csrf: newToken(), created: now, seen: now}
	id := newToken()
	s.byID[id] = ws
	return id, ws
}

// get returns the live session of token, marking it seen.
func (s *sessions) get(token string) *webSession {
	s.mu.Lock()
	defer s.mu.Unlock()
	ws := s.byID[token]
	if ws == nil {
		return nil
	}
	now := s.now()
	if now.Sub(ws.seen) > SessionIdle || now.Sub(ws.created) > SessionMax {
		delete(s.byID, token)
		return nil
	}
	ws.seen = now
	return ws
}

func (s *sessions) remove(token string) {
	s.mu.Lock()
	delete(s.byID, token)
	s.mu.Unlock()
}

func (s *sessions) expireLocked(now time.Time) {
	for id, ws := range s.byID {
		if now.Sub(ws.seen) > SessionIdle || now.Sub(ws.created) > SessionMax {
			delete(s.byID, id)
		}
	}
}

// checkLogin returns the account that user logs into from host with
// password, or false: no such account, a locked one, a wrong password, or
// an account that requires TLS of a console served without it.
func checkLogin(db *mysql_db.MySQLDb, user, password, host string, secure bool) (account, bool) {
	rd := db.Reader()
	defer rd.Close()
	u := db.GetUser(rd, user, host, false)
	if u == nil || u.Locked || u.IsRole {
		return account{}, false
	}
	if u.SslType != "" && (!secure || u.SslType != "ANY") {
		// X509 and the like need a client certificate, which the
		// console does not ask for.
		return account{}, false
	}
	if !passwordMatches(u, password) {
		return account{}, false
	}
	return account{User: u.User, Host: u.Host}, true
}

// passwordMatches checks password against the account's stored digest,
// for the two plugins the server offers.
func passwordMatches(u *mysql_db.User, password string) bool {
	if u.AuthString == "" {
		return password == ""
	}
	switch u.Plugin {
	case string(mysql.MysqlNativePassword), "":
		return subtle.ConstantTimeCompare([]byte(nativeDigest(password)), []byte(u.AuthString)) == 1
	case string(mysql.CachingSha2Password):
		digest, iterations, salt, _, err := mysql.DeserializeCachingSha2PasswordAuthString([]byte(u.AuthString))
		if err != nil || digest != "SHA256" {
			return false
		}
		want, err := mysql.SerializeCachingSha2PasswordAuthString(password, salt, iterations)
		return err == nil && subtle.ConstantTimeCompare(want, []byte(u.AuthString)) == 1
	}
	return false
}

// nativeDigest is mysql_native_password's stored form of a password:
// '*' and the upper-case hex of SHA1(SHA1(password)).
func nativeDigest(password string) string {
	h1 := sha1.Sum([]byte(password))
	h2 := sha1.Sum(h1[:])
	return "*" + strings.ToUpper(hex.EncodeToString(h2[:]))
}

// accountLive reports whether acct still exists, unlocked.
func accountLive(db *mysql_db.MySQLDb, acct account) bool {
	rd := db.Reader()
	defer rd.Close()
	u, ok := rd.GetUser(mysql_db.UserPrimaryKey{User: acct.User, Host: acct.Host})
	return ok && u != nil && !u.Locked
}

// clientHost is the host a request comes from, as accounts match it.
func clientHost(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// sameOrigin reports whether the request's Origin header, if any, names
// the console itself.
func sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" || o == "null" {
		// A browser sends "null" where a referrer policy hides the
		// origin; Sec-Fetch-Site still says where the request came
		// from.
		// Tools such as curl send neither, and need the CSRF token all
		// the same.
		return r.Header.Get("Sec-Fetch-Site") == "" || r.Header.Get("Sec-Fetch-Site") == "same-origin"
	}
	scheme := "http://"
	if r.TLS != nil {
		scheme = "https://"
	}
	return o == scheme+r.Host
}

// tokensEqual compares two tokens in constant time; empty never matches.
func tokensEqual(a, b string) bool {
	return a != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}
