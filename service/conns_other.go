//go:build !linux

package service

import "net"

// withReadyReads is the identity off Linux, where grpc-go reads every
// connection through a buffer of its own (conns_linux.go).
func withReadyReads(lis net.Listener) net.Listener { return lis }
