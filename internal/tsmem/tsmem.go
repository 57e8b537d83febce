//go:build cgo && linux

// Package tsmem measures the C memory tree-sitter allocates: it hands the
// library a counting allocator for the length of a measurement, so that a
// benchmark can tell a parse's peak, which no Go statistic sees (the
// syntax package routes tree-sitter to libc's malloc). Only benchmarks
// import it.
package tsmem

/*
#include <malloc.h>
#include <stdlib.h>

void ts_set_allocator(void *(*)(size_t), void *(*)(size_t, size_t), void *(*)(void *, size_t), void (*)(void *));

static long long cur, peak;

static void add(long long n) {
	long long c = __atomic_add_fetch(&cur, n, __ATOMIC_RELAXED);
	long long p = __atomic_load_n(&peak, __ATOMIC_RELAXED);
	while (c > p && !__atomic_compare_exchange_n(&peak, &p, c, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
	}
}

static void *count_malloc(size_t n) {
	void *p = malloc(n);
	if (p) add(malloc_usable_size(p));
	return p;
}

static void *count_calloc(size_t n, size_t size) {
	void *p = calloc(n, size);
	if (p) add(malloc_usable_size(p));
	return p;
}

static void *count_realloc(void *old, size_t n) {
	long long before = old ? malloc_usable_size(old) : 0;
	void *p = realloc(old, n);
	if (p) add((long long)malloc_usable_size(p) - before);
	return p;
}

static void count_free(void *p) {
	if (p) add(-(long long)malloc_usable_size(p));
	free(p);
}

static void start(void) {
	__atomic_store_n(&cur, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&peak, 0, __ATOMIC_RELAXED);
	ts_set_allocator(count_malloc, count_calloc, count_realloc, count_free);
}

static void stop(void) { ts_set_allocator(malloc, calloc, realloc, free); }

static long long peak_bytes(void) { return __atomic_load_n(&peak, __ATOMIC_RELAXED); }
*/
import "C"

// Peak runs fn with tree-sitter's allocations counted and returns the most
// bytes they held at once beyond what they held when fn began (blocks freed
// during fn that were allocated before it count as negative). Measurements
// must not overlap, and no other parse may run meanwhile.
func Peak(fn func()) int64 {
	C.start()
	defer C.stop()
	fn()
	return int64(C.peak_bytes())
}
