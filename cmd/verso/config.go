package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/verso-db/verso/sqlserver"
)

// serverConfig holds the settings of verso sql-server, from its config
// file (--config) and its flags; a flag given on the command line wins
// over the file.
type serverConfig struct {
	Host           string
	Port           int
	DataDir        string
	User, Password string
	MaxConnections int
	ReadTimeout    time.Duration
	WriteTimeout   time.Duration
	// SecureFilePriv is server.Config's: "" for the default
	// folder, NULL, or a folder.
	SecureFilePriv string
	ConnectTimeout time.Duration
	MaxQueryMemory int64 // bytes; 0: no limit
	CacheSize      int64 // bytes of each of each database's caches (nodes, commits)
	LogLevel       slog.Level
	LogJSON        bool // log_format json
	NoAutoGC       bool // automatic garbage collection off

	// TLS: a certificate and key, the authority of client certificates;
	// without a certificate one is made in the config folder, unless
	// NoTLS.
	TLSCert, TLSKey, TLSCA string
	NoTLS                  bool
	RequireSecureTransport bool
	RequireClientCert      bool
	// Socket is the Unix socket's path; SocketSet says it was given
	// (else Dolt's default is used when free).
	Socket    string
	SocketSet bool

	ReadOnly               bool
	NoAutocommit           bool
	DisableMultiStatements bool
	BackLog                int
	MaxConnectionsTimeout  time.Duration
	MaxLoggedQueryLen      int
	// CfgDir holds the server's files (users, TLS); "" for the
	// defaults beside the databases. PrivilegeFile overrides the users
	// file's path.
	CfgDir, PrivilegeFile string
	SessionVars           map[string]map[string]any
	SystemVars            map[string]any
	EventScheduler        string // "" (unset), ON, OFF or DISABLED
	// BranchActivityTracking turns on dolt_branch_activity
	// (sqlserver.Provider.TrackBranchActivity).
	BranchActivityTracking bool
	// HTTP is the web console's host:port (package web); "" for none.
	HTTP string
}

// configFile is the YAML layout of the config file: Dolt's sql-server
// config, under the same names, so that a Dolt config works unchanged or
// is refused with a message that names the key verso cannot honour:
//
//	data_dir: .data          # relative to the config file's folder
//	cfg_dir: .verso-cfg      # the users file and TLS folder (default: beside the databases)
//	privilege_file: users    # the users file (accounts and grants)
//	user:
//	  name: root
//	  password: ""
//	listener:
//	  host: 127.0.0.1
//	  port: 3306
//	  socket: /tmp/mysql.sock          # the Unix socket
//	  max_connections: 100             # 0: no limit
//	  back_log: 0                      # clients that may wait beyond max_connections
//	  max_connections_timeout_millis: 60000
//	  read_timeout_millis: 28800000
//	  write_timeout_millis: 28800000
//	  connect_timeout_millis: 10000    # verso's own: the handshake's bound
//	  tls_cert: server-cert.pem        # default: one made in cfg_dir/tls
//	  tls_key: server-key.pem
//	  ca_cert: ca.pem                  # the authority of client certificates
//	  require_secure_transport: false
//	  require_client_cert: false
//	behavior:
//	  read_only: false
//	  autocommit: true
//	  disable_client_multi_statements: false
//	  event_scheduler: "ON"            # ON runs scheduled events (CREATE EVENT); OFF or DISABLED keeps them idle
//	  branch_activity_tracking: false  # true: dolt_branch_activity tracks reads and writes of branches
//	  max_query_memory: 1G             # verso's own: bytes, or with K, M, G; 0: no limit
//	  cache_size: 64M                  # verso's own: each database's caches of decoded tree nodes and commits
//	  auto_gc_behavior:
//	    enable: true                   # automatic garbage collection (verso.AutoGC)
//	    archive_level: 1               # Dolt's: 0 or 1 accepted; verso writes no archives
//	user_session_vars:                 # session variables set at each login of a user
//	  - name: root
//	    vars: {sql_select_limit: 1000}
//	system_variables: {max_execution_time: 60000}
//	secure_file_priv: files  # or NULL (or empty); relative to the config file's folder
//	log_level: info          # debug, info, warn or error (Dolt's also: trace, warning)
//	log_format: text         # or json
//	max_logged_query_len: 0  # characters of a statement in the log (0: 1000; -1: all)
//	http:                    # verso's own: the web console, off without this key
//	  host: 127.0.0.1
//	  port: 8080
//
// Dolt's keys for what verso does not have are accepted only where they
// ask for nothing: dolt_transaction_commit false, a branch_control_file
// that does not exist, an empty jwks, a
// metrics port of -1 (or none), no remotesapi port and no cluster.
// secure_file_priv is MySQL's name (Dolt has no such key). Every key is
// optional. An unknown key is an error, so a misspelt setting is not
// silently ignored.
type configFile struct {
	DataDir           *string `yaml:"data_dir"`
	CfgDir            *string `yaml:"cfg_dir"`
	PrivilegeFile     *string `yaml:"privilege_file"`
	BranchControlFile *string `yaml:"branch_control_file"`
	LogLevel          *string `yaml:"log_level"`
	LogFormat         *string `yaml:"log_format"`
	MaxLoggedQueryLen *int    `yaml:"max_logged_query_len"`
	UserSessionVars   []struct {
		Name string         `yaml:"name"`
		Vars map[string]any `yaml:"vars"`
	} `yaml:"user_session_vars"`
	SystemVariables map[string]any `yaml:"system_variables"`
	JWKS            []any          `yaml:"jwks"`
	Metrics         struct {
		Labels                  map[string]string `yaml:"labels"`
		Host                    *string           `yaml:"host"`
		Port                    *int              `yaml:"port"`
		TLSCert                 string            `yaml:"tls_cert"`
		TLSKey                  string            `yaml:"tls_key"`
		TLSCA                   string            `yaml:"tls_ca"`
		JWTRequiredForLocalhost bool              `yaml:"jwt_required_for_localhost"`
	} `yaml:"metrics"`
	RemotesAPI struct {
		Port     *int  `yaml:"port"`
		ReadOnly *bool `yaml:"read_only"`
	} `yaml:"remotesapi"`
	Cluster        yaml.Node `yaml:"cluster"`
	SecureFilePriv yaml.Node `yaml:"secure_file_priv"` // a node: YAML reads NULL as null
	User           struct {
		Name     *string `yaml:"name"`
		Password *string `yaml:"password"`
	} `yaml:"user"`
	Listener struct {
		Host                 *string `yaml:"host"`
		Port                 *int    `yaml:"port"`
		MaxConnections       *int    `yaml:"max_connections"`
		ReadTimeoutMillis    *int64  `yaml:"read_timeout_millis"`
		WriteTimeoutMillis   *int64  `yaml:"write_timeout_millis"`
		ConnectTimeoutMillis *int64  `yaml:"connect_timeout_millis"`
		BackLog              *int    `yaml:"back_log"`
		MaxConnTimeoutMillis *int64  `yaml:"max_connections_timeout_millis"`
		Socket               *string `yaml:"socket"`
		TLSCert              *string `yaml:"tls_cert"`
		TLSKey               *string `yaml:"tls_key"`
		CACert               *string `yaml:"ca_cert"`
		RequireSecure        *bool   `yaml:"require_secure_transport"`
		RequireClientCert    *bool   `yaml:"require_client_cert"`
	} `yaml:"listener"`
	HTTP *struct {
		Host *string `yaml:"host"`
		Port *int    `yaml:"port"`
	} `yaml:"http"`
	Behavior struct {
		ReadOnly               *bool   `yaml:"read_only"`
		Autocommit             *bool   `yaml:"autocommit"`
		DisableMultiStatements *bool   `yaml:"disable_client_multi_statements"`
		DoltTransactionCommit  *bool   `yaml:"dolt_transaction_commit"`
		EventScheduler         *string `yaml:"event_scheduler"`
		BranchActivityTracking *bool   `yaml:"branch_activity_tracking"`
		MaxQueryMemory         *string `yaml:"max_query_memory"`
		CacheSize              *string `yaml:"cache_size"`
		AutoGC                 struct {
			Enable       *bool `yaml:"enable"`
			ArchiveLevel *int  `yaml:"archive_level"`
		} `yaml:"auto_gc_behavior"`
	} `yaml:"behavior"`
}

// readConfigFile applies the settings of the config file at path to c.
func readConfigFile(path string, c *serverConfig) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading the config file: %w", err)
	}
	var f configFile
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("config file %s: %v (see verso help for its keys)", path, err)
	}
	bad := func(key string, v any) error {
		return fmt.Errorf("config file %s: %s is %v; it must not be negative", path, key, v)
	}
	// rel resolves a path of the file against the file's folder.
	rel := func(p string) string {
		if p != "" && !filepath.IsAbs(p) {
			return filepath.Join(filepath.Dir(path), p)
		}
		return p
	}
	if f.DataDir != nil {
		c.DataDir = rel(*f.DataDir)
	}
	if f.CfgDir != nil {
		c.CfgDir = rel(*f.CfgDir)
	}
	if f.PrivilegeFile != nil {
		c.PrivilegeFile = rel(*f.PrivilegeFile)
	}
	if err := refusedConfigKeys(path, &f, rel); err != nil {
		return err
	}
	if f.HTTP != nil {
		host := "127.0.0.1"
		if f.HTTP.Host != nil {
			host = *f.HTTP.Host
		}
		if f.HTTP.Port == nil || *f.HTTP.Port < 0 || *f.HTTP.Port > 65535 {
			return fmt.Errorf("config file %s: http needs a port from 0 to 65535 (http: {host: 127.0.0.1, port: 8080})", path)
		}
		c.HTTP = net.JoinHostPort(host, strconv.Itoa(*f.HTTP.Port))
	}
	if f.LogFormat != nil {
		switch strings.ToLower(*f.LogFormat) {
		case "text":
			c.LogJSON = false
		case "json":
			c.LogJSON = true
		default:
			return fmt.Errorf("config file %s: log_format is %q; give text or json", path, *f.LogFormat)
		}
	}
	if f.MaxLoggedQueryLen != nil {
		c.MaxLoggedQueryLen = *f.MaxLoggedQueryLen
		if c.MaxLoggedQueryLen < 0 {
			c.MaxLoggedQueryLen = -1
		}
	}
	for _, u := range f.UserSessionVars {
		if u.Name == "" {
			return fmt.Errorf("config file %s: an entry of user_session_vars has no name", path)
		}
		if c.SessionVars == nil {
			c.SessionVars = map[string]map[string]any{}
		}
		c.SessionVars[u.Name] = u.Vars
	}
	if len(f.SystemVariables) > 0 {
		c.SystemVars = f.SystemVariables
	}
	if n := f.SecureFilePriv; n.Kind != 0 {
		switch {
		case n.Kind != yaml.ScalarNode:
			return fmt.Errorf("config file %s: secure_file_priv must be a folder or NULL", path)
		case n.Tag == "!!null" || strings.EqualFold(n.Value, "NULL"):
			c.SecureFilePriv = "NULL"
		case n.Value == "":
			return fmt.Errorf("config file %s: secure_file_priv is empty; give a folder, or NULL to disable LOAD_FILE, INTO OUTFILE and LOAD DATA INFILE", path)
		default:
			c.SecureFilePriv = n.Value
			if !filepath.IsAbs(c.SecureFilePriv) {
				c.SecureFilePriv = filepath.Join(filepath.Dir(path), c.SecureFilePriv)
			}
		}
	}
	if f.User.Name != nil {
		c.User = *f.User.Name
	}
	if f.User.Password != nil {
		c.Password = *f.User.Password
	}
	l := f.Listener
	if l.Host != nil {
		c.Host = *l.Host
	}
	if l.Port != nil {
		if *l.Port < 0 || *l.Port > 65535 {
			return fmt.Errorf("config file %s: listener.port is %d; it must be between 0 and 65535", path, *l.Port)
		}
		c.Port = *l.Port
	}
	if l.MaxConnections != nil {
		if *l.MaxConnections < 0 {
			return bad("listener.max_connections", *l.MaxConnections)
		}
		c.MaxConnections = *l.MaxConnections
	}
	if l.ReadTimeoutMillis != nil {
		if *l.ReadTimeoutMillis < 0 {
			return bad("listener.read_timeout_millis", *l.ReadTimeoutMillis)
		}
		c.ReadTimeout = time.Duration(*l.ReadTimeoutMillis) * time.Millisecond
	}
	if l.WriteTimeoutMillis != nil {
		if *l.WriteTimeoutMillis < 0 {
			return bad("listener.write_timeout_millis", *l.WriteTimeoutMillis)
		}
		c.WriteTimeout = time.Duration(*l.WriteTimeoutMillis) * time.Millisecond
	}
	if l.BackLog != nil {
		if *l.BackLog < 0 {
			return bad("listener.back_log", *l.BackLog)
		}
		c.BackLog = *l.BackLog
	}
	if l.MaxConnTimeoutMillis != nil {
		if *l.MaxConnTimeoutMillis < 0 {
			return bad("listener.max_connections_timeout_millis", *l.MaxConnTimeoutMillis)
		}
		c.MaxConnectionsTimeout = time.Duration(*l.MaxConnTimeoutMillis) * time.Millisecond
	}
	if l.Socket != nil {
		c.Socket, c.SocketSet = rel(*l.Socket), true
	}
	if l.TLSCert != nil {
		c.TLSCert = rel(*l.TLSCert)
	}
	if l.TLSKey != nil {
		c.TLSKey = rel(*l.TLSKey)
	}
	if l.CACert != nil {
		c.TLSCA = rel(*l.CACert)
	}
	if l.RequireSecure != nil {
		c.RequireSecureTransport = *l.RequireSecure
	}
	if l.RequireClientCert != nil {
		c.RequireClientCert = *l.RequireClientCert
	}
	bh := f.Behavior
	if bh.ReadOnly != nil {
		c.ReadOnly = *bh.ReadOnly
	}
	if bh.Autocommit != nil {
		c.NoAutocommit = !*bh.Autocommit
	}
	if bh.DisableMultiStatements != nil {
		c.DisableMultiStatements = *bh.DisableMultiStatements
	}
	if t := bh.BranchActivityTracking; t != nil {
		c.BranchActivityTracking = *t
	}
	if e := bh.EventScheduler; e != nil {
		switch v := strings.ToUpper(*e); v {
		case "ON", "OFF", "DISABLED":
			c.EventScheduler = v
		default:
			return fmt.Errorf("config file %s: behavior.event_scheduler is %q; give ON, OFF or DISABLED", path, *e)
		}
	}
	if l.ConnectTimeoutMillis != nil {
		if *l.ConnectTimeoutMillis <= 0 {
			return fmt.Errorf("config file %s: listener.connect_timeout_millis is %d; it must be positive", path, *l.ConnectTimeoutMillis)
		}
		c.ConnectTimeout = time.Duration(*l.ConnectTimeoutMillis) * time.Millisecond
	}
	if f.LogLevel != nil {
		lv, err := parseLogLevel(*f.LogLevel)
		if err != nil {
			return fmt.Errorf("config file %s: log_level: %v", path, err)
		}
		c.LogLevel = lv
	}
	if m := f.Behavior.MaxQueryMemory; m != nil {
		n, err := parseByteSize(*m)
		if err != nil {
			return fmt.Errorf("config file %s: behavior.max_query_memory: %v", path, err)
		}
		c.MaxQueryMemory = n
	}
	if m := f.Behavior.CacheSize; m != nil {
		n, err := parseByteSize(*m)
		if err != nil {
			return fmt.Errorf("config file %s: behavior.cache_size: %v", path, err)
		}
		c.CacheSize = n
	}
	if e := f.Behavior.AutoGC.Enable; e != nil {
		c.NoAutoGC = !*e
	}
	if a := f.Behavior.AutoGC.ArchiveLevel; a != nil && *a != 0 && *a != 1 {
		return fmt.Errorf("config file %s: behavior.auto_gc_behavior.archive_level is %d; verso writes no archive files, so only Dolt's 0 and 1 are accepted (and change nothing)", path, *a)
	}
	return nil
}

// refusedConfigKeys fails on the keys of Dolt's config file that ask for
// what verso does not have, and accepts those that ask for nothing.
func refusedConfigKeys(path string, f *configFile, rel func(string) string) error {
	refuse := func(key, why string) error {
		return fmt.Errorf("config file %s: %s: %s; remove the key to start", path, key, why)
	}
	if b := f.BranchControlFile; b != nil && *b != "" {
		if _, err := os.Stat(rel(*b)); err == nil {
			return refuse("branch_control_file", "verso has no branch permissions (dolt_branch_control), so it cannot enforce the ones in "+*b)
		}
	}
	if len(f.JWKS) > 0 {
		return refuse("jwks", "verso does not authenticate with JSON web tokens")
	}
	if p := f.Metrics.Port; p != nil && *p > 0 {
		return refuse("metrics.port", "verso serves no metrics endpoint")
	}
	if f.RemotesAPI.Port != nil {
		return refuse("remotesapi.port", "verso serves no remotes API")
	}
	if f.Cluster.Kind != 0 && f.Cluster.Tag != "!!null" {
		return refuse("cluster", "verso has no cluster replication")
	}
	if d := f.Behavior.DoltTransactionCommit; d != nil && *d {
		return refuse("behavior.dolt_transaction_commit", "verso does not make a commit of each SQL transaction; call dolt_commit() instead")
	}
	return nil
}

// parseLogLevel parses a log level: debug, info, warn or error, or
// Dolt's trace and warning (any case).
func parseLogLevel(s string) (slog.Level, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "trace":
		return sqlserver.LevelTrace, nil
	case "debug":
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("%q is not a log level; give debug, info, warn or error", s)
}

// parseByteSize parses a size in bytes: a number, with K, M, G or T for
// 1024, 1024², ... (MySQL's option suffixes; "KiB", "MB" and the like are
// the same), as in 1G or 512M.
func parseByteSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "B"), "I")
	mult := int64(1)
	if k := strings.IndexAny(t, "KMGT"); k >= 0 && k == len(t)-1 {
		mult = int64(1) << (10 * (strings.IndexByte("KMGT", t[k]) + 1))
		t = strings.TrimSpace(t[:k])
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("%q is not a size; give bytes, or a number with K, M or G (1024-based), as in 1G", s)
	}
	return n * mult, nil
}
