package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509/pkix"
	"net"
	"strings"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/mysql_db"
	"github.com/dolthub/vitess/go/mysql"
)

// caching_sha2_password, MySQL 8's default authentication plugin.
//
// An account made with IDENTIFIED WITH caching_sha2_password keeps
// MySQL's salted, iterated SHA-256 digest of its password (the engine's
// encoding, as in mysql.user). Checking a password against it needs the
// password itself, which the client sends only over a secure connection:
// the first login of such an account after the server starts ("full
// authentication") must use TLS. The server then keeps, in memory only,
// SHA256(SHA256(password)) for the account, and later logins over any
// connection, TLS or not, the Unix socket included, take MySQL's fast
// path: the client proves it knows the password with a scramble of the
// connection's salt, which is checked against that hash without the
// password crossing the wire. A cached hash is used only while the
// account's stored digest is the one it was made from, so ALTER USER, SET
// PASSWORD, RENAME USER and DROP USER end it. Without TLS and without a
// cached hash, the login fails with 1045 and a message saying to connect
// with TLS once; the RSA key exchange some clients offer instead is not
// supported.
//
// mysql_native_password, the engine's default for new accounts, works
// over any connection.

// authServer is the protocol library's account checker over the engine's
// user database: the engine's own methods, with caching_sha2_password's
// fast path (above).
type authServer struct {
	db      *mysql_db.MySQLDb
	methods []mysql.AuthMethod
}

func newAuthServer(db *mysql_db.MySQLDb) *authServer {
	c := &sha2Cache{db: db, hashes: map[string]sha2Hash{}}
	methods := append([]mysql.AuthMethod(nil), db.AuthMethods()...)
	for i, m := range methods {
		if m.Name() == mysql.CachingSha2Password {
			methods[i] = sha2Method{AuthMethod: mysql.NewSha2CachingAuthMethod(c, c, c), c: c}
		}
	}
	return &authServer{db: db, methods: methods}
}

func (a *authServer) AuthMethods() []mysql.AuthMethod { return a.methods }

func (a *authServer) DefaultAuthMethodDescription() mysql.AuthMethodDescription {
	return a.db.DefaultAuthMethodDescription()
}

// sha2Method is the library's caching_sha2_password method, offered on
// every connection (the library's offers it only over TLS or its own Unix
// socket listener), so a client without TLS can take the fast path.
type sha2Method struct {
	mysql.AuthMethod
	c *sha2Cache
}

func (m sha2Method) HandleUser(conn *mysql.Conn, user string) bool {
	return m.c.HandleUser(user, conn.RemoteAddr())
}

// sha2Cache holds the hashes of the fast path (above), and checks the
// accounts of caching_sha2_password for the library: it is the method's
// cache (CachingStorage), its password checker (PlainTextStorage) and its
// account filter (UserValidator).
type sha2Cache struct {
	db *mysql_db.MySQLDb

	mu     sync.Mutex
	hashes map[string]sha2Hash // by the account's user and host
}

// sha2Hash is what a full authentication leaves for the fast path.
type sha2Hash struct {
	authString string   // the account's stored digest it was made with
	hash2      [32]byte // SHA256(SHA256(password))
}

func accountKey(u *mysql_db.User) string { return u.User + "\x00" + u.Host }

// HandleUser says whether a client logging in as user from addr is to
// use caching_sha2_password: its account's plugin is that one.
func (c *sha2Cache) HandleUser(user string, addr net.Addr) bool {
	if !c.db.Enabled() {
		return false
	}
	rd := c.db.Reader()
	defer rd.Close()
	u := c.db.GetUser(rd, user, clientHost(addr), false)
	return u != nil && u.Plugin == string(mysql.CachingSha2Password)
}

// account returns the enabled account of user from addr, for conn, or
// the error the client gets.
func (c *sha2Cache) account(conn *mysql.Conn, user string, addr net.Addr) (*mysql_db.User, error) {
	rd := c.db.Reader()
	defer rd.Close()
	u := c.db.GetUser(rd, user, clientHost(addr), false)
	if u == nil || u.Locked {
		return nil, accessDenied(user)
	}
	if err := connectionSecurity(u, conn); err != nil {
		return nil, err
	}
	return u, nil
}

// UserEntryWithCacheHash is the fast path: reply is the client's scramble
// of salt with its password.
func (c *sha2Cache) UserEntryWithCacheHash(conn *mysql.Conn, salt []byte, user string, reply []byte, addr net.Addr) (mysql.Getter, mysql.CacheState, error) {
	if !c.db.Enabled() {
		return nil, mysql.AuthNeedMoreData, nil
	}
	u, err := c.account(conn, user, addr)
	if err != nil {
		return nil, mysql.AuthRejected, err
	}
	login := sql.MysqlConnectionUser{User: u.User, Host: u.Host}
	if len(reply) == 0 || len(reply) == 1 && reply[0] == 0 {
		// No password given: right only for an account without one.
		if u.AuthString == "" {
			return login, mysql.AuthAccepted, nil
		}
		return nil, mysql.AuthRejected, accessDenied(user)
	}
	c.mu.Lock()
	h, ok := c.hashes[accountKey(u)]
	c.mu.Unlock()
	if ok && h.authString == u.AuthString {
		// Some clients (PyMySQL) scramble with the switch request's
		// data whole, its trailing NUL included: the same proof of the
		// password over the same fresh nonce.
		if mysql.VerifyHashedCachingSha2Password(reply, salt, h.hash2[:]) ||
			mysql.VerifyHashedCachingSha2Password(reply, append(salt[:len(salt):len(salt)], 0), h.hash2[:]) {
			return login, mysql.AuthAccepted, nil
		}
		return nil, mysql.AuthRejected, accessDenied(user)
	}
	if !conn.TLSEnabled() {
		return nil, mysql.AuthRejected, mysql.NewSQLError(mysql.ERAccessDeniedError, mysql.SSAccessDeniedError,
			"Access denied for user '%v': this account's caching_sha2_password must first be checked over a secure connection since the server started; connect once with TLS (mysql --ssl), or give the account mysql_native_password", user)
	}
	return nil, mysql.AuthNeedMoreData, nil
}

// UserEntryWithPassword is the full authentication, over TLS: password is
// the client's, in clear.
func (c *sha2Cache) UserEntryWithPassword(conn *mysql.Conn, user string, password string, addr net.Addr) (mysql.Getter, error) {
	if !c.db.Enabled() {
		return sql.MysqlConnectionUser{User: user, Host: clientHost(addr)}, nil
	}
	u, err := c.account(conn, user, addr)
	if err != nil {
		return nil, err
	}
	if u.AuthString == "" {
		if password != "" {
			return nil, accessDenied(user)
		}
		return sql.MysqlConnectionUser{User: u.User, Host: u.Host}, nil
	}
	digest, iterations, salt, _, err := mysql.DeserializeCachingSha2PasswordAuthString([]byte(u.AuthString))
	if err != nil || digest != "SHA256" {
		return nil, accessDenied(user)
	}
	want, err := mysql.SerializeCachingSha2PasswordAuthString(password, salt, iterations)
	if err != nil || subtle.ConstantTimeCompare(want, []byte(u.AuthString)) != 1 {
		return nil, accessDenied(user)
	}
	h1 := sha256.Sum256([]byte(password))
	c.mu.Lock()
	c.hashes[accountKey(u)] = sha2Hash{authString: u.AuthString, hash2: sha256.Sum256(h1[:])}
	c.mu.Unlock()
	return sql.MysqlConnectionUser{User: u.User, Host: u.Host}, nil
}

// connectionSecurity checks conn against what account u requires of it
// (REQUIRE SSL, X509, CIPHER, ISSUER, SUBJECT), as the engine does for
// its own methods.
func connectionSecurity(u *mysql_db.User, conn *mysql.Conn) error {
	if u.SslType == "" {
		return nil
	}
	if !conn.TLSEnabled() {
		return accessDenied(u.User)
	}
	certs := conn.GetTLSClientCerts()
	switch u.SslType {
	case "ANY":
		return nil
	case "X509":
		if len(certs) == 0 {
			return accessDenied(u.User)
		}
		return nil
	case "SPECIFIED":
		if u.SslCipher != "" {
			tc, ok := conn.Conn.(*tls.Conn)
			if !ok || tls.CipherSuiteName(tc.ConnectionState().CipherSuite) != u.SslCipher {
				return accessDenied(u.User)
			}
		}
		if u.X509Issuer != "" && (len(certs) == 0 || mysqlDN(certs[0].Issuer) != u.X509Issuer) {
			return accessDenied(u.User)
		}
		if u.X509Subject != "" && (len(certs) == 0 || mysqlDN(certs[0].Subject) != u.X509Subject) {
			return accessDenied(u.User)
		}
		return nil
	}
	return accessDenied(u.User)
}

// mysqlDN writes a distinguished name as MySQL does:
// /C=US/ST=Washington/O=Example/CN=Example CA.
func mysqlDN(n pkix.Name) string {
	parts := strings.Split(n.String(), ",")
	var b strings.Builder
	for i := len(parts) - 1; i >= 0; i-- {
		b.WriteString("/")
		b.WriteString(parts[i])
	}
	return b.String()
}

// clientHost is the host of a client's address, as the engine matches
// accounts: localhost for the Unix socket.
func clientHost(addr net.Addr) string {
	if addr.Network() == "unix" {
		return "localhost"
	}
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return addr.String()
	}
	return host
}

func accessDenied(user string) error {
	return mysql.NewSQLError(mysql.ERAccessDeniedError, mysql.SSAccessDeniedError, "Access denied for user '%v'", user)
}
