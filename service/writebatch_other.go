//go:build !linux

package service

import "net"

// withReadOnReady leaves b as it is: gRPC reads other systems' sockets
// through a buffer of its own.
func withReadOnReady(b *batchConn) net.Conn { return b }
