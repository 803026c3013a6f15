package server

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/verso-db/verso/internal/atomicfile"
)

// TLS for client connections.
//
// A server given a *tls.Config (Config.TLS) offers TLS in its handshake:
// a client that asks for it (mysql --ssl, PyMySQL's ssl=, mysql2's ssl:,
// go-sql-driver's tls=) switches to TLS before it logs in. Accounts made
// with REQUIRE SSL (or X509, SUBJECT, ISSUER, CIPHER) can log in only
// that way, and with Config.RequireSecureTransport (MySQL's
// require_secure_transport) every client must use TLS or the Unix socket.
//
// LoadTLS reads a certificate and key given by their files (--tls-cert,
// --tls-key, Dolt's listener.tls_cert and listener.tls_key), and, as
// MySQL 8 does on its first start, AutoTLS makes a certificate authority
// and a server certificate signed by it in a folder when the folder has
// none, so mysql --ssl works without setup and a client can verify the
// server with --ssl-ca=<folder>/ca.pem. The folder's files (PEM):
//
//	ca.pem           the authority's certificate (give it to clients)
//	server-cert.pem  the server's certificate, then the authority's
//	server-key.pem   the server's private key (mode 0600)
//
// Keys are ECDSA P-256; certificates last ten years. The authority's key
// is not kept: to renew, delete the three files and restart. The server
// certificate names localhost, 127.0.0.1, ::1, this machine's host name
// and the host the server listens on.

// Files of an AutoTLS folder.
const (
	TLSCAFile   = "ca.pem"
	TLSCertFile = "server-cert.pem"
	TLSKeyFile  = "server-key.pem"
)

// tlsValidity is how long AutoTLS's certificates last.
const tlsValidity = 10 * 365 * 24 * time.Hour

// LoadTLS returns the TLS settings of a server from a certificate file
// (PEM, with its chain) and its key. With caFile, clients that send a
// certificate have it verified against the authorities of caFile (for
// accounts that REQUIRE X509); requireClientCert makes every client send
// one (Dolt's listener.require_client_cert).
func LoadTLS(certFile, keyFile, caFile string, requireClientCert bool) (*tls.Config, error) {
	if certFile == "" || keyFile == "" {
		return nil, errors.New("TLS needs both a certificate and its key: give --tls-cert and --tls-key (listener.tls_cert and listener.tls_key in the config file)")
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("loading the TLS certificate %s and key %s: %v", certFile, keyFile, err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if caFile != "" {
		b, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("reading the CA certificate for client certificates: %v", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(b) {
			return nil, fmt.Errorf("the CA file %s holds no PEM certificate", caFile)
		}
		cfg.ClientCAs = pool
		cfg.ClientAuth = tls.VerifyClientCertIfGiven
	}
	if requireClientCert {
		if caFile == "" {
			return nil, errors.New("requiring client certificates needs the authority that signs them: give --tls-ca (listener.ca_cert in the config file)")
		}
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	}
	return cfg, nil
}

// AutoTLS returns TLS settings from the certificate and key of the folder
// dir (see above), made first if the folder has none; made reports
// whether they were. host is the host the server listens on, named in a
// new certificate beside the loopback names.
func AutoTLS(dir, host string) (cfg *tls.Config, made bool, err error) {
	certFile, keyFile := filepath.Join(dir, TLSCertFile), filepath.Join(dir, TLSKeyFile)
	_, errCert := os.Stat(certFile)
	_, errKey := os.Stat(keyFile)
	switch {
	case errCert == nil && errKey == nil:
		cfg, err = LoadTLS(certFile, keyFile, "", false)
		return cfg, false, err
	case errCert == nil || errKey == nil:
		return nil, false, fmt.Errorf("the TLS folder %s has only one of %s and %s: delete the other to have both made again, or give --tls-cert and --tls-key", dir, TLSCertFile, TLSKeyFile)
	case !errors.Is(errCert, os.ErrNotExist):
		return nil, false, fmt.Errorf("reading the TLS folder: %v", errCert)
	}
	if err := makeTLSFiles(dir, host, time.Now()); err != nil {
		return nil, false, fmt.Errorf("making a TLS certificate in %s: %v", dir, err)
	}
	cfg, err = LoadTLS(certFile, keyFile, "", false)
	return cfg, true, err
}

// makeTLSFiles writes a new authority and server certificate into dir,
// each file written whole before it is renamed into place, the key last,
// so a crash leaves either no pair or a whole one.
func makeTLSFiles(dir, host string, now time.Time) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	serial := func() (*big.Int, error) { return rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127)) }
	caSerial, err := serial()
	if err != nil {
		return err
	}
	notBefore := now.Add(-time.Hour)
	caTmpl := &x509.Certificate{
		SerialNumber:          caSerial,
		Subject:               pkix.Name{CommonName: "verso auto-generated CA", Organization: []string{"verso"}},
		NotBefore:             notBefore,
		NotAfter:              now.Add(tlsValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	srvSerial, err := serial()
	if err != nil {
		return err
	}
	tmpl := &x509.Certificate{
		SerialNumber: srvSerial,
		Subject:      pkix.Name{CommonName: "verso auto-generated server certificate", Organization: []string{"verso"}},
		NotBefore:    notBefore,
		NotAfter:     now.Add(tlsValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	names := []string{host}
	if h, err := os.Hostname(); err == nil {
		names = append(names, h)
	}
	for _, n := range names {
		switch ip := net.ParseIP(n); {
		case n == "" || n == "localhost":
		case ip != nil:
			if !ip.IsLoopback() && !ip.IsUnspecified() {
				tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
			}
		default:
			tmpl.DNSNames = append(tmpl.DNSNames, n)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	certPEM := append(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), caPEM...)
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})
	for _, f := range []struct {
		name string
		data []byte
		mode os.FileMode
	}{{TLSCAFile, caPEM, 0o644}, {TLSCertFile, certPEM, 0o644}, {TLSKeyFile, keyPEM, 0o600}} {
		if err := atomicfile.Write(filepath.Join(dir, f.name), f.data, f.mode); err != nil {
			return err
		}
	}
	return nil
}
