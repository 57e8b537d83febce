//go:build !linux

package service

import "net"

// withReadOnReady leaves b as it is: gRPC reads other systems' sockets
// through a buffer of its own.
func withReadOnReady(b *batchConn, _ *net.TCPConn) net.Conn { return b }

// underLimit has nothing to find: grpc-go sets no socket option here.
func underLimit(net.Conn) *net.TCPConn { return nil }
