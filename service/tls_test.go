package service_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/service"
	"github.com/toolguard/toolguard/service/servicetest"
)

// testCA is a throwaway certificate authority made for one test.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newTestCA(t *testing.T, name string) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return &testCA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// issue returns a certificate for 127.0.0.1 signed by the CA, for a server
// or a client, as PEM certificate and key.
func (ca *testCA) issue(t *testing.T, name string, usage x509.ExtKeyUsage) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{usage},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:     []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
}

func writePEM(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// tlsServer starts a server with a certificate from ca, requiring client
// certificates from clientCA when it is not nil.
func tlsServer(t *testing.T, ca, clientCA *testCA) service.Config {
	t.Helper()
	dir := t.TempDir()
	certPEM, keyPEM := ca.issue(t, "toolguard", x509.ExtKeyUsageServerAuth)
	cfg := service.Config{TLSCert: writePEM(t, dir, "server.pem", certPEM), TLSKey: writePEM(t, dir, "server-key.pem", keyPEM)}
	if clientCA != nil {
		cfg.TLSClientCA = writePEM(t, dir, "client-ca.pem", clientCA.pem)
	}
	_, got := servicetest.Start(t, cfg) // its own connection is plaintext: unused
	return got
}

// dialTLS connects to addr trusting ca, presenting cert when it is not nil.
func dialTLS(t *testing.T, addr string, ca *testCA, cert *tls.Certificate) toolguardv1.ToolGuardServiceClient {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	tc := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	if cert != nil {
		tc.Certificates = []tls.Certificate{*cert}
	}
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(credentials.NewTLS(tc)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return toolguardv1.NewToolGuardServiceClient(conn)
}

func clientCert(t *testing.T, ca *testCA, name string) *tls.Certificate {
	t.Helper()
	certPEM, keyPEM := ca.issue(t, name, x509.ExtKeyUsageClientAuth)
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	return &cert
}

func TestTLS(t *testing.T) {
	ca := newTestCA(t, "test CA")
	cfg := tlsServer(t, ca, nil)

	c := dialTLS(t, cfg.Listen, ca, nil)
	if _, err := c.ListTools(t.Context(), &toolguardv1.ListToolsRequest{}); err != nil {
		t.Fatalf("TLS client: %v", err)
	}

	conn, err := grpc.NewClient(cfg.Listen, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, err = toolguardv1.NewToolGuardServiceClient(conn).ListTools(t.Context(), &toolguardv1.ListToolsRequest{})
	if status.Code(err) != codes.Unavailable {
		t.Fatalf("plaintext client of a TLS server: %v, want Unavailable", err)
	}
	if _, err := c.ListTools(t.Context(), &toolguardv1.ListToolsRequest{}); err != nil {
		t.Fatalf("TLS client after the plaintext one: %v", err)
	}
}

func TestMutualTLS(t *testing.T) {
	ca, clientCA, rogue := newTestCA(t, "server CA"), newTestCA(t, "client CA"), newTestCA(t, "rogue CA")
	cfg := tlsServer(t, ca, clientCA)

	trusted := dialTLS(t, cfg.Listen, ca, clientCert(t, clientCA, "orchestrator"))
	if _, err := trusted.ListTools(t.Context(), &toolguardv1.ListToolsRequest{}); err != nil {
		t.Fatalf("client with a certificate: %v", err)
	}

	for name, cert := range map[string]*tls.Certificate{
		"no certificate":                  nil,
		"a certificate of another CA":     clientCert(t, rogue, "intruder"),
		"the server CA's own client cert": clientCert(t, ca, "server-side"),
	} {
		_, err := dialTLS(t, cfg.Listen, ca, cert).ListTools(t.Context(), &toolguardv1.ListToolsRequest{})
		if status.Code(err) != codes.Unavailable {
			t.Errorf("client with %s: %v, want Unavailable (handshake refused)", name, err)
		}
	}

	if _, err := trusted.ListTools(t.Context(), &toolguardv1.ListToolsRequest{}); err != nil {
		t.Fatalf("client with a certificate after the refusals: %v", err)
	}
}

func TestTLSFilesChecked(t *testing.T) {
	dir := t.TempDir()
	ca := newTestCA(t, "test CA")
	certPEM, keyPEM := ca.issue(t, "toolguard", x509.ExtKeyUsageServerAuth)
	cert, key := writePEM(t, dir, "cert.pem", certPEM), writePEM(t, dir, "key.pem", keyPEM)
	otherKey := func() []byte { _, k := ca.issue(t, "other", x509.ExtKeyUsageServerAuth); return k }()
	for name, files := range map[string][3]string{ // cert, key, client CA
		"missing key file":    {cert, filepath.Join(dir, "missing.pem"), ""},
		"key of another cert": {cert, writePEM(t, dir, "other-key.pem", otherKey), ""},
		"client CA not PEM":   {cert, key, writePEM(t, dir, "ca.txt", []byte("not a certificate"))},
		"client CA missing":   {cert, key, filepath.Join(dir, "missing-ca.pem")},
	} {
		cfg := service.DefaultConfig()
		cfg.Workspace = t.TempDir()
		cfg.TLSCert, cfg.TLSKey, cfg.TLSClientCA = files[0], files[1], files[2]
		if _, err := service.New(cfg, nil); err == nil {
			t.Errorf("%s: New succeeded", name)
		}
	}
}
