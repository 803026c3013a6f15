package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/server"
	"github.com/verso-db/verso/sqlserver"
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
	fs := flag.NewFlagSet("sql-server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	configPath := fs.String("config", "", "read settings from this YAML file (flags override it)")
	host := fs.String("host", "127.0.0.1", "address to listen on")
	port := fs.Int("port", 3306, "port to listen on")
	dataDir := fs.String("data-dir", "", "serve every database folder in this folder")
	user := fs.String("user", sqlserver.DefaultUser, "the superuser's name")
	password := fs.String("password", "", "the superuser's password (required unless listening on loopback)")
	maxConns := fs.Int("max-connections", 0, "the most clients connected at once (0: no limit)")
	timeout := fs.Duration("timeout", server.DefaultConnTimeout, "read and write timeout of client connections")
	readTimeout := fs.Duration("read-timeout", server.DefaultConnTimeout, "read timeout of client connections (overrides --timeout)")
	writeTimeout := fs.Duration("write-timeout", server.DefaultConnTimeout, "write timeout of client connections (overrides --timeout)")
	secureFilePriv := fs.String("secure-file-priv", "", "the folder LOAD_FILE, INTO OUTFILE and LOAD DATA INFILE may reach, or NULL to disable them (default: .verso-files of the data dir)")
	connectTimeout := fs.Duration("connect-timeout", server.DefaultConnectTimeout, "how long a new connection has to complete its handshake (MySQL's connect_timeout)")
	maxQueryMemory := fs.String("max-query-memory", "1G", "the memory one statement may take: bytes, or a number with K, M or G (0: no limit)")
	autoGC := fs.Bool("auto-gc", true, "collect garbage in the background once a database's files have doubled (past 64 MiB); --auto-gc=false turns it off")
	logLevel := fs.String("log-level", "info", "what the log on stderr shows: debug (every connection and statement), info, warn or error")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "verso sql-server: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	cfg := serverConfig{Host: "127.0.0.1", Port: 3306, User: sqlserver.DefaultUser,
		ReadTimeout: server.DefaultConnTimeout, WriteTimeout: server.DefaultConnTimeout,
		ConnectTimeout: server.DefaultConnectTimeout, MaxQueryMemory: server.DefaultMaxQueryMemory}
	if *configPath != "" {
		if err := readConfigFile(joinDir(dir, *configPath), &cfg); err != nil {
			fmt.Fprintf(stderr, "verso sql-server: %v\n", err)
			return 2
		}
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["host"] {
		cfg.Host = *host
	}
	if set["port"] {
		cfg.Port = *port
	}
	if set["data-dir"] {
		cfg.DataDir = joinDir(dir, *dataDir)
	}
	if set["user"] {
		cfg.User = *user
	}
	if set["password"] {
		cfg.Password = *password
	}
	if set["max-connections"] {
		cfg.MaxConnections = *maxConns
	}
	if set["timeout"] {
		cfg.ReadTimeout, cfg.WriteTimeout = *timeout, *timeout
	}
	if set["read-timeout"] {
		cfg.ReadTimeout = *readTimeout
	}
	if set["write-timeout"] {
		cfg.WriteTimeout = *writeTimeout
	}
	if set["secure-file-priv"] {
		cfg.SecureFilePriv = *secureFilePriv
		if cfg.SecureFilePriv != "" && !strings.EqualFold(cfg.SecureFilePriv, "NULL") {
			cfg.SecureFilePriv = joinDir(dir, cfg.SecureFilePriv)
		}
	}
	if set["connect-timeout"] {
		cfg.ConnectTimeout = *connectTimeout
	}
	if set["max-query-memory"] {
		n, err := parseByteSize(*maxQueryMemory)
		if err != nil {
			fmt.Fprintf(stderr, "verso sql-server: --max-query-memory: %v\n", err)
			return 2
		}
		cfg.MaxQueryMemory = n
	}
	if set["auto-gc"] {
		cfg.NoAutoGC = !*autoGC
	}
	if set["log-level"] {
		lv, err := parseLogLevel(*logLevel)
		if err != nil {
			fmt.Fprintf(stderr, "verso sql-server: --log-level: %v\n", err)
			return 2
		}
		cfg.LogLevel = lv
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
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	defer sqlserver.ForwardLogrus(logrus.StandardLogger(), logger)()
	p, serving, usersFile, filesDir, err := openProvider(dir, cfg.DataDir)
	if err != nil {
		fmt.Fprintf(stderr, "verso sql-server: %v\n", err)
		return 1
	}
	defer p.Close()
	p.SetAutoGC(verso.AutoGC{Off: cfg.NoAutoGC})
	p.SetLogger(logger) // the databases' lines (automatic collections)
	if cfg.SecureFilePriv == "" && filesDir != "" {
		if err := os.MkdirAll(filesDir, 0o750); err != nil {
			fmt.Fprintf(stderr, "verso sql-server: making the secure_file_priv folder: %v\n", err)
			return 1
		}
	}
	s, err := server.New(p, server.Config{
		Address:        net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port)),
		ReadTimeout:    cfg.ReadTimeout,
		WriteTimeout:   cfg.WriteTimeout,
		ConnectTimeout: cfg.ConnectTimeout,
		MaxConnections: cfg.MaxConnections,
		MaxQueryMemory: queryMemoryLimit(cfg.MaxQueryMemory),
		User:           cfg.User,
		Password:       cfg.Password,
		UsersFile:      usersFile,
		SecureFilePriv: cmp.Or(cfg.SecureFilePriv, filesDir),
		Logger:         logger,
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
	fmt.Fprintf(stdout, "verso sql-server listening on %s\nserving %s\n", s.Addr(), serving)
	logger.Info("verso sql-server listening", "addr", s.Addr(), "data_dir", servedDir(dir, cfg.DataDir), "version", moduleVersion())
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

// openProvider opens the databases to serve (see runSQLServer). Without a
// data dir and outside any database, it serves the current folder as the
// data dir, as Dolt does: each database folder in it is a database, and
// CREATE DATABASE makes new ones there. A data dir that does not exist yet
// is created. filesDir is the default folder of secure_file_priv where it
// is not the data dir's (server.DefaultFilesDir), else "".
func openProvider(dir, dataDir string) (p *sqlserver.Provider, serving, usersFile, filesDir string, err error) {
	p, serving, usersFile, filesDir, err = openDatabases(dir, dataDir, false)
	if err == nil {
		setCommitter(p)
	}
	return p, serving, usersFile, filesDir, err
}

// openDatabases is openProvider without the committer; with readOnly
// every database is opened read-only (sqlserver.NewReadOnlyProvider) and
// nothing is created.
func openDatabases(dir, dataDir string, readOnly bool) (p *sqlserver.Provider, serving, usersFile, filesDir string, err error) {
	newProvider := sqlserver.NewProvider
	if readOnly {
		newProvider = sqlserver.NewReadOnlyProvider
	}
	if dataDir != "" {
		d := dataDir // resolved against dir by the caller
		if !readOnly {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return nil, "", "", "", fmt.Errorf("create the data dir: %w", err)
			}
		}
		p, err := newProvider(d)
		return p, "the databases in " + d, filepath.Join(d, usersFileName), "", err
	}
	root, err := findRepoRoot(dir)
	if errors.Is(err, errNoRepo) {
		if dir == "" {
			dir = "."
		}
		abs, _ := filepath.Abs(dir)
		p, err := newProvider(dir)
		return p, "the databases in " + abs + " (CREATE DATABASE makes one here)", filepath.Join(abs, usersFileName), "", err
	}
	if err != nil {
		return nil, "", "", "", err
	}
	p, err = newProvider(root)
	if err != nil {
		return nil, "", "", "", err
	}
	if err := p.AddDatabaseDir(filepath.Base(root), root); err != nil {
		p.Close()
		return nil, "", "", "", err
	}
	// A database served alone keeps the server's files in its .verso
	// folder, as it does the users file.
	return p, "the database " + filepath.Base(root) + " in " + root, filepath.Join(root, repoDir, "users"), filepath.Join(root, repoDir, "files"), nil
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
// made with CREATE USER and GRANT (sqlserver's users file). A database
// served alone keeps them in .verso/users.
const usersFileName = ".verso-users"

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
		p.SetCommitter(identity("", ""))
	}
}
