package service

// A unary call's goroutine starts with the runtime's smallest stack, and
// ValidateToolCall's path (the interceptor chain, then the repair parser's
// recursion) outgrows it several times: each growth copies the stack and
// walks every frame on it, deep in the call, where that is dearest. Growing
// it once at the handler's entry, while the stack is shallow, costs one
// cheap copy instead.

// stackReserve is what growStack reserves. It brings a fresh stack to the
// largest size goroutine stacks are cached at per processor (16 KB), which
// holds the usual call's whole path; deep nesting still grows it further.
const stackReserve = 8 << 10

// growStack grows the calling goroutine's stack by stackReserve.
//
//go:noinline
func growStack() {
	var buf [stackReserve]byte
	keep(buf[:])
}

// keep makes buf look used, so that its frame is not optimised away.
//
//go:noinline
func keep([]byte) {}
