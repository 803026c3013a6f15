package main

import (
	"cmp"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	gmssql "github.com/dolthub/go-mysql-server/sql"
	"github.com/sirupsen/logrus"
	"github.com/spf13/pflag"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/server"
	"github.com/verso-db/verso/sqlserver"
	"github.com/verso-db/verso/web"
)

// runSQLServer serves databases over the MySQL protocol until interrupted.
// With --data-dir it serves every database folder of that folder; without,
// the database of the current folder (or its nearest parent with one),
// under the folder's name, and CREATE DATABASE makes sub-folders of it.
func runSQLServer(dir string, args []string, stdout, stderr io.Writer) int {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	return serveSQL(dir, args, stdout, stderr, sig)
}

// serveSQL is runSQLServer, stopping when stop receives.
func serveSQL(dir string, args []string, stdout, stderr io.Writer, stop <-chan os.Signal) int {
	fs := newFlags("sql-server", cliContext{stdout: stdout, stderr: stderr})
	// Dolt's spelling of --log-level.
	fs.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if name == "loglevel" {
			name = "log-level"
		}
		return pflag.NormalizedName(name)
	})
	configPath := fs.String("config", "", "read settings from this YAML file (flags override it)")
	host := fs.StringP("host", "H", "127.0.0.1", "address to listen on")
	port := fs.IntP("port", "P", 3306, "port to listen on")
	dataDir := fs.String("data-dir", "", "serve every database folder in this folder")
	cfgDir := fs.String("doltcfg-dir", "", "the folder of the server's files: the users file and the TLS certificate (default: beside the databases)")
	privilegeFile := fs.String("privilege-file", "", "the file of accounts and grants (default: .verso-users of the data dir)")
	user := fs.StringP("user", "u", sqlserver.DefaultUser, "the superuser's name")
	password := fs.StringP("password", "p", "", "the superuser's password (required unless listening on loopback)")
	maxConns := fs.Int("max-connections", 0, "the most clients connected at once (0: no limit)")
	backLog := fs.Int("back-log", 0, "how many clients beyond --max-connections may wait for a place (0: none, they get error 1040)")
	maxConnsTimeout := fs.Duration("max-connections-timeout", server.DefaultMaxConnectionsTimeout, "how long a client of the back log waits for a place")
	timeout := secondsFlag{server.DefaultConnTimeout}
	fs.VarP(&timeout, "timeout", "t", "read and write timeout of client connections: a duration (8h) or seconds, as Dolt's; 0 for none")
	readTimeout := fs.Duration("read-timeout", server.DefaultConnTimeout, "read timeout of client connections (overrides --timeout)")
	writeTimeout := fs.Duration("write-timeout", server.DefaultConnTimeout, "write timeout of client connections (overrides --timeout)")
	secureFilePriv := fs.String("secure-file-priv", "", "the folder LOAD_FILE, INTO OUTFILE and LOAD DATA INFILE may reach, or NULL to disable them (default: .verso-files of the data dir)")
	connectTimeout := fs.Duration("connect-timeout", server.DefaultConnectTimeout, "how long a new connection has to complete its handshake (MySQL's connect_timeout)")
	maxQueryMemory := fs.String("max-query-memory", "1G", "the memory one statement may take: bytes, or a number with K, M or G (0: no limit)")
	cacheSize := fs.String("cache-size", "64M", "each of a database's two caches of decoded data (tree nodes, commits): bytes, or a number with K, M or G; reads of what they hold come from memory (0: no cache)")
	autoGC := fs.Bool("auto-gc", true, "collect garbage in the background once a database's files have doubled (past 64 MiB); --auto-gc=false turns it off")
	logLevel := fs.StringP("log-level", "l", "info", "what the log on stderr shows: debug (every connection and statement), info, warn or error (also --loglevel)")
	logFormat := fs.StringP("logformat", "f", "text", "the log's format: text or json")
	readOnly := fs.BoolP("readonly", "r", false, "refuse every statement that would change a database (error 1290)")
	noAutocommit := fs.Bool("no-auto-commit", false, "start every session with @@autocommit off")
	socket := fs.String("socket", "", "also listen on this Unix socket (default: "+defaultSocket+" when the host is a loopback one and no other server answers there; --socket '' for none)")
	tlsCert := fs.String("tls-cert", "", "the TLS certificate (PEM) offered to clients (default: one made in the config folder's tls/)")
	tlsKey := fs.String("tls-key", "", "the key of --tls-cert")
	tlsCA := fs.String("tls-ca", "", "the authority of client certificates, for accounts that REQUIRE X509")
	noTLS := fs.Bool("no-tls", false, "offer no TLS when no certificate is given (instead of making one)")
	requireSecure := fs.Bool("require-secure-transport", false, "turn away clients on TCP without TLS (error 3159)")
	httpAddr := fs.String("http", "", "serve the web console on this host:port (127.0.0.1:8080), with the SQL accounts; off by default")
	replicaRemote := fs.String("read-replica-remote", "", "be a read replica: pull each database from its remote of this name before each transaction, and refuse writes (@@dolt_read_replica_remote)")
	replicateHeads := fs.String("replicate-heads", "", "the branches a read replica pulls: a comma-separated list, * allowed (@@dolt_replicate_heads)")
	replicateAll := fs.Bool("replicate-all-heads", false, "a read replica pulls every branch, and deletes those the remote no longer has (@@dolt_replicate_all_heads)")
	replicateTo := fs.String("replicate-to-remote", "", "push every commit to each database's remote of this name before answering (@@dolt_replicate_to_remote)")
	if _, code, ok := parseFlags(fs, args, 0); !ok {
		return code
	}
	cfg := serverConfig{Host: "127.0.0.1", Port: 3306, User: sqlserver.DefaultUser,
		ReadTimeout: server.DefaultConnTimeout, WriteTimeout: server.DefaultConnTimeout,
		ConnectTimeout: server.DefaultConnectTimeout, MaxQueryMemory: server.DefaultMaxQueryMemory,
		CacheSize: verso.DefaultCacheBytes}
	if *configPath != "" {
		if err := readConfigFile(joinDir(dir, *configPath), &cfg); err != nil {
			fmt.Fprintf(stderr, "verso sql-server: %v\n", err)
			return 2
		}
	}
	given := func(name string) bool { return fs.Changed(name) }
	if given("host") {
		cfg.Host = *host
	}
	if given("port") {
		cfg.Port = *port
	}
	if given("data-dir") {
		cfg.DataDir = joinDir(dir, *dataDir)
	}
	if given("doltcfg-dir") {
		cfg.CfgDir = joinDir(dir, *cfgDir)
	}
	if given("privilege-file") {
		cfg.PrivilegeFile = joinDir(dir, *privilegeFile)
	}
	if given("user") {
		cfg.User = *user
	}
	if given("password") {
		cfg.Password = *password
	}
	if given("max-connections") {
		cfg.MaxConnections = *maxConns
	}
	if given("back-log") {
		cfg.BackLog = *backLog
	}
	if given("max-connections-timeout") {
		cfg.MaxConnectionsTimeout = *maxConnsTimeout
	}
	if given("timeout") {
		cfg.ReadTimeout, cfg.WriteTimeout = timeout.d, timeout.d
	}
	if given("read-timeout") {
		cfg.ReadTimeout = *readTimeout
	}
	if given("write-timeout") {
		cfg.WriteTimeout = *writeTimeout
	}
	if given("secure-file-priv") {
		cfg.SecureFilePriv = *secureFilePriv
		if cfg.SecureFilePriv != "" && !strings.EqualFold(cfg.SecureFilePriv, "NULL") {
			cfg.SecureFilePriv = joinDir(dir, cfg.SecureFilePriv)
		}
	}
	if given("connect-timeout") {
		cfg.ConnectTimeout = *connectTimeout
	}
	if given("max-query-memory") {
		n, err := parseByteSize(*maxQueryMemory)
		if err != nil {
			fmt.Fprintf(stderr, "verso sql-server: --max-query-memory: %v\n", err)
			return 2
		}
		cfg.MaxQueryMemory = n
	}
	if given("cache-size") {
		n, err := parseByteSize(*cacheSize)
		if err != nil {
			fmt.Fprintf(stderr, "verso sql-server: --cache-size: %v\n", err)
			return 2
		}
		cfg.CacheSize = n
	}
	if given("auto-gc") {
		cfg.NoAutoGC = !*autoGC
	}
	if given("log-level") {
		lv, err := parseLogLevel(*logLevel)
		if err != nil {
			fmt.Fprintf(stderr, "verso sql-server: --log-level: %v\n", err)
			return 2
		}
		cfg.LogLevel = lv
	}
	if given("logformat") {
		switch *logFormat {
		case "text", "json":
			cfg.LogJSON = *logFormat == "json"
		default:
			fmt.Fprintf(stderr, "verso sql-server: --logformat is %q; give text or json\n", *logFormat)
			return 2
		}
	}
	if given("readonly") {
		cfg.ReadOnly = *readOnly
	}
	if given("no-auto-commit") {
		cfg.NoAutocommit = *noAutocommit
	}
	if given("socket") {
		cfg.Socket, cfg.SocketSet = *socket, true
		if cfg.Socket != "" {
			cfg.Socket = joinDir(dir, cfg.Socket)
		}
	}
	if given("tls-cert") {
		cfg.TLSCert = joinDir(dir, *tlsCert)
	}
	if given("tls-key") {
		cfg.TLSKey = joinDir(dir, *tlsKey)
	}
	if given("tls-ca") {
		cfg.TLSCA = joinDir(dir, *tlsCA)
	}
	if given("no-tls") {
		cfg.NoTLS = *noTLS
	}
	if given("require-secure-transport") {
		cfg.RequireSecureTransport = *requireSecure
	}
	for _, f := range []struct {
		flag, variable string
		value          any
	}{
		{"read-replica-remote", "dolt_read_replica_remote", *replicaRemote},
		{"replicate-heads", "dolt_replicate_heads", *replicateHeads},
		{"replicate-all-heads", "dolt_replicate_all_heads", *replicateAll},
		{"replicate-to-remote", "dolt_replicate_to_remote", *replicateTo},
	} {
		if given(f.flag) {
			if cfg.SystemVars == nil {
				cfg.SystemVars = map[string]any{}
			}
			cfg.SystemVars[f.variable] = f.value
		}
	}
	if err := checkReplication(cfg.SystemVars); err != nil {
		fmt.Fprintf(stderr, "verso sql-server: %v\n", err)
		return 2
	}
	if given("http") {
		cfg.HTTP = *httpAddr
		if _, _, err := net.SplitHostPort(cfg.HTTP); cfg.HTTP != "" && err != nil {
			fmt.Fprintf(stderr, "verso sql-server: --http is %q; give host:port (127.0.0.1:8080)\n", cfg.HTTP)
			return 2
		}
	}
	if cfg.MaxConnections < 0 || cfg.Port < 0 || cfg.Port > 65535 || cfg.ReadTimeout < 0 || cfg.WriteTimeout < 0 {
		fmt.Fprintln(stderr, "verso sql-server: --port must be 0 to 65535, and --max-connections and the timeouts must not be negative")
		return 2
	}
	if cfg.ConnectTimeout <= 0 {
		fmt.Fprintln(stderr, "verso sql-server: --connect-timeout must be positive")
		return 2
	}
	// The server's log, on stderr. The engine and its protocol library
	// also log through logrus's standard logger (connection lines,
	// handshake errors): this program routes it into the same log, at the
	// same levels (the library never touches it).
	var handler slog.Handler = slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: cfg.LogLevel})
	if cfg.LogJSON {
		handler = slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: cfg.LogLevel})
	}
	logger := slog.New(handler)
	defer sqlserver.ForwardLogrus(logrus.StandardLogger(), logger)()
	p, sv, err := openProvider(dir, cfg.DataDir)
	if err != nil {
		fmt.Fprintf(stderr, "verso sql-server: %v\n", err)
		return 1
	}
	defer p.Close()
	p.SetAutoGC(verso.AutoGC{Off: cfg.NoAutoGC})
	p.SetCacheBytes(cfg.CacheSize)
	p.SetLogger(logger) // the databases' lines (automatic collections)
	if cfg.BranchActivityTracking {
		p.TrackBranchActivity()
	}
	if cfg.SecureFilePriv == "" && sv.filesDir != "" {
		if err := os.MkdirAll(sv.filesDir, 0o750); err != nil {
			fmt.Fprintf(stderr, "verso sql-server: making the secure_file_priv folder: %v\n", err)
			return 1
		}
	}
	if cfg.CfgDir != "" {
		sv.usersFile, sv.tlsDir = filepath.Join(cfg.CfgDir, "users"), filepath.Join(cfg.CfgDir, "tls")
	}
	usersFile := cmp.Or(cfg.PrivilegeFile, sv.usersFile)
	if err := os.MkdirAll(filepath.Dir(usersFile), 0o700); err != nil {
		fmt.Fprintf(stderr, "verso sql-server: making the users file's folder: %v\n", err)
		return 1
	}
	tlsConfig, err := serverTLS(cfg, sv.tlsDir)
	if err != nil {
		fmt.Fprintf(stderr, "verso sql-server: %v\n", err)
		return 2
	}
	sockPath, socketIfFree := cfg.Socket, false
	if !cfg.SocketSet && runtime.GOOS != "windows" && isLoopbackHost(cfg.Host) {
		sockPath, socketIfFree = defaultSocket, true
	}
	restoreVars, err := setServerVariables(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "verso sql-server: %v\n", err)
		return 2
	}
	defer restoreVars()
	localPassword, err := newLocalPassword()
	if err != nil {
		fmt.Fprintf(stderr, "verso sql-server: %v\n", err)
		return 1
	}
	s, err := server.New(p, server.Config{
		LocalUser:              localToolsUser,
		LocalPassword:          localPassword,
		Address:                net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port)),
		ReadTimeout:            cfg.ReadTimeout,
		WriteTimeout:           cfg.WriteTimeout,
		ConnectTimeout:         cfg.ConnectTimeout,
		MaxConnections:         cfg.MaxConnections,
		BackLog:                cfg.BackLog,
		MaxConnectionsTimeout:  cfg.MaxConnectionsTimeout,
		MaxQueryMemory:         queryMemoryLimit(cfg.MaxQueryMemory),
		User:                   cfg.User,
		Password:               cfg.Password,
		UsersFile:              usersFile,
		SecureFilePriv:         cmp.Or(cfg.SecureFilePriv, sv.filesDir),
		Logger:                 logger,
		TLS:                    tlsConfig,
		RequireSecureTransport: cfg.RequireSecureTransport,
		Socket:                 sockPath,
		SocketIfFree:           socketIfFree,
		ReadOnly:               cfg.ReadOnly,
		NoAutocommit:           cfg.NoAutocommit,
		DisableMultiStatements: cfg.DisableMultiStatements,
		SessionVars:            cfg.SessionVars,
		MaxLoggedQueryLen:      cfg.MaxLoggedQueryLen,
	})
	if err != nil {
		fmt.Fprintf(stderr, "verso sql-server: %v\n", err)
		return 1
	}
	if path := os.Getenv("VERSO_CPUPROFILE"); path != "" {
		// Profiling for benchmarks (docs/BENCHMARKS.md): the CPU profile
		// of the whole run, written at shutdown.
		f, err := os.Create(path)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(stderr, "verso sql-server: VERSO_CPUPROFILE: %v\n", err)
			return 1
		}
		defer f.Close()
		defer pprof.StopCPUProfile()
	}
	// The file by which the commands that write find this server
	// (serverinfo.go).
	removeInfo, err := writeServerInfo(sv.infoFile, serverInfo{PID: os.Getpid(), Addr: s.Addr(), Socket: s.Socket(), User: localToolsUser, Password: localPassword})
	if err != nil {
		logger.Warn("could not write the file by which verso's commands find this server; they will refuse to write", "file", sv.infoFile, "error", err)
	} else {
		defer removeInfo()
	}
	if cfg.HTTP != "" {
		console, err := web.New(s, web.Config{Address: cfg.HTTP, Logger: logger})
		if err != nil {
			s.Close()
			fmt.Fprintf(stderr, "verso sql-server: %v\n", err)
			return 1
		}
		go func() {
			if err := console.Serve(); err != nil {
				logger.Error("the web console stopped", "error", err)
			}
		}()
		defer console.Close()
		fmt.Fprintf(stdout, "web console on %s\n", console.URL())
	}
	fmt.Fprintf(stdout, "verso sql-server listening on %s\nserving %s\n", s.Addr(), sv.what)
	if s.Socket() != "" {
		fmt.Fprintf(stdout, "listening on the Unix socket %s too\n", s.Socket())
	}
	if tlsConfig != nil && cfg.TLSCert == "" {
		fmt.Fprintf(stdout, "TLS offered with a self-signed certificate: clients verify it with %s\n", filepath.Join(sv.tlsDir, server.TLSCAFile))
	}
	logger.Info("verso sql-server listening", "addr", s.Addr(), "socket", s.Socket(), "tls", tlsSummary(cfg, tlsConfig, sv.tlsDir), "data_dir", servedDir(dir, cfg.DataDir), "version", moduleVersion())
	done := make(chan error, 1)
	go func() { done <- s.Start() }()
	select {
	case <-stop:
		fmt.Fprintln(stdout, "verso sql-server: shutting down")
		logger.Info("shutting down")
		if !s.Shutdown(shutdownTimeout) {
			logger.Warn("some connections were still busy at shutdown; closing the databases anyway", "waited", shutdownTimeout)
		}
		<-done
		return 0
	case err := <-done:
		if err != nil {
			logger.Error("the server stopped", "error", err)
			return 1
		}
		return 0
	}
}

// queryMemoryLimit is the server's MaxQueryMemory for the setting n,
// where 0 means no limit.
func queryMemoryLimit(n int64) int64 {
	if n == 0 {
		return -1
	}
	return n
}

// shutdownTimeout is how long a stopping server waits for the handlers of
// its connections.
const shutdownTimeout = 10 * time.Second

// serving describes what openProvider opened: the text the server
// prints, and where the server's own files go by default.
type serving struct {
	what      string // "the databases in ...", for the start line
	usersFile string // accounts and grants
	// filesDir is the default folder of secure_file_priv where it is not
	// the data dir's (server.DefaultFilesDir), else "".
	filesDir string
	tlsDir   string // the certificate made when none is given
	infoFile string // where the server names itself for the commands (serverinfo.go)
}

// openProvider opens the databases to serve (see runSQLServer). Without a
// data dir and outside any database, it serves the current folder as the
// data dir, as Dolt does: each database folder in it is a database, and
// CREATE DATABASE makes new ones there. A data dir that does not exist yet
// is created.
func openProvider(dir, dataDir string) (*sqlserver.Provider, serving, error) {
	p, sv, err := openDatabases(dir, dataDir, false)
	if err == nil {
		setCommitter(p)
	}
	return p, sv, err
}

// openDatabases is openProvider without the committer; with readOnly
// every database is opened read-only (sqlserver.NewReadOnlyProvider) and
// nothing is created.
func openDatabases(dir, dataDir string, readOnly bool) (*sqlserver.Provider, serving, error) {
	newProvider := sqlserver.NewProvider
	if readOnly {
		newProvider = sqlserver.NewReadOnlyProvider
	}
	// The server's files in a data dir: beside the databases, under
	// names no database can have.
	inDataDir := func(d, what string) serving {
		return serving{what: what, usersFile: filepath.Join(d, usersFileName), tlsDir: filepath.Join(d, tlsDirName), infoFile: filepath.Join(d, dataDirServerInfo)}
	}
	if dataDir != "" {
		d := dataDir // resolved against dir by the caller
		if !readOnly {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return nil, serving{}, fmt.Errorf("create the data dir: %w", err)
			}
		}
		p, err := newProvider(d)
		return p, inDataDir(d, "the databases in "+d), err
	}
	root, err := findRepoRoot(dir)
	if errors.Is(err, errNoRepo) {
		if dir == "" {
			dir = "."
		}
		abs, _ := filepath.Abs(dir)
		p, err := newProvider(dir)
		return p, inDataDir(abs, "the databases in "+abs+" (CREATE DATABASE makes one here)"), err
	}
	if err != nil {
		return nil, serving{}, err
	}
	p, err := newProvider(root)
	if err != nil {
		return nil, serving{}, err
	}
	if err := p.AddDatabaseDir(filepath.Base(root), root); err != nil {
		p.Close()
		return nil, serving{}, err
	}
	// A database served alone keeps the server's files in its .verso
	// folder.
	v := filepath.Join(root, repoDir)
	return p, serving{what: "the database " + filepath.Base(root) + " in " + root,
		usersFile: filepath.Join(v, "users"), filesDir: filepath.Join(v, "files"), tlsDir: filepath.Join(v, "tls"), infoFile: filepath.Join(v, serverInfoFile)}, nil
}

// servedDir is the folder openProvider serves: the data dir, the
// database's folder, or the current one.
func servedDir(dir, dataDir string) string {
	if dataDir != "" {
		return dataDir
	}
	if root, err := findRepoRoot(dir); err == nil {
		return root
	}
	abs, _ := filepath.Abs(cmp.Or(dir, "."))
	return abs
}

// usersFileName is the file of a data dir holding the accounts and grants
// made with CREATE USER and GRANT (sqlserver's users file), and
// tlsDirName the folder of the certificate the server makes
// (server.AutoTLS). A database served alone keeps them in .verso/users
// and .verso/tls; with a config folder (--doltcfg-dir, cfg_dir) they are
// its users and tls.
const (
	usersFileName = ".verso-users"
	tlsDirName    = ".verso-tls"
)

// defaultSocket is the Unix socket a server on a loopback address listens
// on when no other server answers there and none is configured: Dolt's
// and MySQL's default.
const defaultSocket = "/tmp/mysql.sock"

// errNoRepo says that no folder up from the current one holds a database.
var errNoRepo = errors.New("no verso database")

// findRepoRoot returns the folder holding the database of dir or of its
// nearest parent that has one, without opening it.
func findRepoRoot(dir string) (string, error) {
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; d = filepath.Dir(d) {
		if fi, err := os.Stat(filepath.Join(d, repoDir, storeDir)); err == nil && fi.IsDir() {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("%w in %s or any parent folder (run verso init, or give --data-dir)", errNoRepo, abs)
		}
	}
}

// setCommitter gives p the identity of $VERSO_AUTHOR_NAME and
// $VERSO_AUTHOR_EMAIL, when either is set, for commits made over SQL by
// sessions that set no @@dolt_committer_name; otherwise those commits
// record the SQL user.
func setCommitter(p *sqlserver.Provider) {
	if os.Getenv(envName) != "" || os.Getenv(envEmail) != "" {
		p.SetCommitter(identity("", "", ""))
	}
}

// serverTLS returns the server's TLS settings: the certificate of the
// configuration, or one made in tlsDir (server.AutoTLS) unless NoTLS.
func serverTLS(cfg serverConfig, tlsDir string) (*tls.Config, error) {
	if cfg.TLSCert != "" || cfg.TLSKey != "" {
		return server.LoadTLS(cfg.TLSCert, cfg.TLSKey, cfg.TLSCA, cfg.RequireClientCert)
	}
	if cfg.TLSCA != "" || cfg.RequireClientCert {
		return nil, errors.New("a CA for client certificates (--tls-ca, listener.ca_cert, listener.require_client_cert) needs the server's own certificate: give --tls-cert and --tls-key")
	}
	if cfg.NoTLS {
		return nil, nil
	}
	tc, _, err := server.AutoTLS(tlsDir, cfg.Host)
	return tc, err
}

// tlsSummary says, for the start line of the log, what TLS the server
// offers.
func tlsSummary(cfg serverConfig, tc *tls.Config, tlsDir string) string {
	switch {
	case tc == nil:
		return "off"
	case cfg.TLSCert != "":
		return cfg.TLSCert
	}
	return "self-signed, CA " + filepath.Join(tlsDir, server.TLSCAFile)
}

// isLoopbackHost reports whether host, as given to --host, is a loopback
// address or localhost.
func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// setServerVariables sets the global system variables of the
// configuration: system_variables, and those that show the server's
// settings (@@read_only, @@require_secure_transport, @@event_scheduler).
// They are the process's (the engine keeps one set); restore puts back
// what they were, when the server stops.
func setServerVariables(cfg serverConfig) (restore func(), err error) {
	vars := map[string]any{}
	for k, v := range cfg.SystemVars {
		vars[k] = v
	}
	if cfg.ReadOnly {
		vars["read_only"] = 1
	}
	if cfg.RequireSecureTransport {
		vars["require_secure_transport"] = 1
	}
	if cfg.EventScheduler != "" {
		vars["event_scheduler"] = cfg.EventScheduler
	}
	old := map[string]any{}
	for k := range vars {
		if _, v, ok := gmssql.SystemVariables.GetGlobal(k); ok {
			old[k] = v
		}
	}
	if err := gmssql.SystemVariables.AssignValues(vars); err != nil {
		return nil, fmt.Errorf("system_variables: %v", err)
	}
	return func() { gmssql.SystemVariables.AssignValues(old) }, nil
}

// secondsFlag is a duration flag that also takes a bare number of
// seconds, as Dolt's --timeout does; 0 means no timeout.
type secondsFlag struct{ d time.Duration }

// noTimeout stands for "no timeout": longer than any connection lives.
const noTimeout = 100 * 365 * 24 * time.Hour

func (f *secondsFlag) String() string { return f.d.String() }

func (f *secondsFlag) Type() string { return "duration" }

func (f *secondsFlag) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		n, nerr := strconv.ParseUint(s, 10, 32)
		if nerr != nil {
			return fmt.Errorf("%q is neither a duration (8h, 90s) nor a number of seconds", s)
		}
		d = time.Duration(n) * time.Second
	}
	if d < 0 {
		return fmt.Errorf("%q is negative", s)
	}
	if d == 0 {
		d = noTimeout
	}
	f.d = d
	return nil
}

// checkReplication refuses a read replica that names no branch to pull
// (from the flags or the configuration's system_variables).
func checkReplication(vars map[string]any) error {
	str := func(k string) string { s, _ := vars[k].(string); return strings.TrimSpace(s) }
	if str("dolt_read_replica_remote") == "" {
		return nil
	}
	all := false
	switch v := vars["dolt_replicate_all_heads"].(type) {
	case bool:
		all = v
	case int:
		all = v != 0
	case string:
		all = v == "1" || strings.EqualFold(v, "on") || strings.EqualFold(v, "true")
	}
	if !all && str("dolt_replicate_heads") == "" {
		return errors.New("a read replica (--read-replica-remote, dolt_read_replica_remote) needs the branches to pull: --replicate-heads main,feature/* or --replicate-all-heads (dolt_replicate_heads, dolt_replicate_all_heads)")
	}
	return nil
}
