package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
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
	LogLevel       slog.Level
	NoAutoGC       bool // automatic garbage collection off
}

// configFile is the YAML layout of the config file: the subset of Dolt's
// sql-server config that verso understands, under the same names, so a
// Dolt config with only these keys works unchanged:
//
//	data_dir: .data          # relative to the config file's folder
//	user:
//	  name: root
//	  password: ""
//	listener:
//	  host: 127.0.0.1
//	  port: 3306
//	  max_connections: 100   # 0: no limit
//	  read_timeout_millis: 28800000
//	  write_timeout_millis: 28800000
//	  connect_timeout_millis: 10000  # verso's own: the handshake's bound
//	behavior:
//	  max_query_memory: 1G   # verso's own: bytes, or with K, M, G; 0: no limit
//	  auto_gc_behavior:
//	    enable: true         # automatic garbage collection (verso.AutoGC)
//	    archive_level: 1     # Dolt's: 0 or 1 accepted; verso writes no archives
//	secure_file_priv: files  # or NULL (or empty); relative to the config file's folder
//	log_level: info          # debug, info, warn or error (Dolt's also: trace, warning)
//
// secure_file_priv is MySQL's name (Dolt has no such key). Every key is
// optional. An unknown key is an error, so a misspelt
// setting is not silently ignored.
type configFile struct {
	DataDir        *string   `yaml:"data_dir"`
	LogLevel       *string   `yaml:"log_level"`
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
	} `yaml:"listener"`
	Behavior struct {
		MaxQueryMemory *string `yaml:"max_query_memory"`
		AutoGC         struct {
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
	if f.DataDir != nil {
		c.DataDir = *f.DataDir
		if c.DataDir != "" && !filepath.IsAbs(c.DataDir) {
			c.DataDir = filepath.Join(filepath.Dir(path), c.DataDir)
		}
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
	if e := f.Behavior.AutoGC.Enable; e != nil {
		c.NoAutoGC = !*e
	}
	if a := f.Behavior.AutoGC.ArchiveLevel; a != nil && *a != 0 && *a != 1 {
		return fmt.Errorf("config file %s: behavior.auto_gc_behavior.archive_level is %d; verso writes no archive files, so only Dolt's 0 and 1 are accepted (and change nothing)", path, *a)
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
		return 0, fmt.Errorf("%q is not a size; give bytes, or a number with K, M or G (1024-based), as in 1G; 0 for no limit", s)
	}
	return n * mult, nil
}
