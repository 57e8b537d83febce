// Package observability holds the Grafana dashboard and the Prometheus alert
// rules for toolguard, and tests that check them offline against the
// metrics the server and the proxy register.
package observability
