package guard

import (
	lru "container/list"
	"context"
	"crypto/sha256"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/toolguard/toolguard/syntax"
)

// A file's content after one change is its content before the next, and a
// retried edit, or the gate's check of a guess followed by the check of the
// change it made, parses the same texts again. The guard keeps the results
// of its recent checks, keyed by language and the content's SHA-256, so
// that no text is parsed twice while it is remembered: a small LRU, bound
// in entries and in the bytes of the errors it keeps (the contents are not
// kept). Only checked results are kept: "not checked" for time may not
// hold on the next try.

// Bounds of the syntax cache, per Guard (one per process).
const (
	syntaxCacheEntries = 512
	syntaxCacheBytes   = 1 << 20
)

type syntaxKey struct {
	lang string
	sum  [sha256.Size]byte
}

type syntaxEntry struct {
	key  syntaxKey
	r    syntax.Result
	size int
}

// syntaxCache is safe for concurrent use; its zero value is not usable,
// a nil one keeps nothing.
type syntaxCache struct {
	mu                   sync.Mutex
	maxEntries, maxBytes int
	bytes                int
	parses               atomic.Int64 // checks run, for tests
	order                *lru.List    // of *syntaxEntry, the most recent first
	byKey                map[syntaxKey]*lru.Element
}

func newSyntaxCache(entries, bytes int) *syntaxCache {
	return &syntaxCache{maxEntries: entries, maxBytes: bytes, order: lru.New(), byKey: map[syntaxKey]*lru.Element{}}
}

func (c *syntaxCache) get(k syntaxKey) (syntax.Result, bool) {
	if c == nil {
		return syntax.Result{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[k]
	if !ok {
		return syntax.Result{}, false
	}
	c.order.MoveToFront(el)
	r := el.Value.(*syntaxEntry).r
	r.Errors = slices.Clone(r.Errors) // the caller's to keep
	return r, true
}

func (c *syntaxCache) put(k syntaxKey, r syntax.Result) {
	if c == nil {
		return
	}
	size := 64 + len(k.lang) + len(r.Lang)
	for _, e := range r.Errors {
		size += 32 + len(e.Message)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[k]; ok || size > c.maxBytes {
		return
	}
	c.byKey[k] = c.order.PushFront(&syntaxEntry{key: k, r: r, size: size})
	c.bytes += size
	for c.order.Len() > c.maxEntries || c.bytes > c.maxBytes {
		old := c.order.Back().Value.(*syntaxEntry)
		c.order.Remove(c.order.Back())
		delete(c.byKey, old.key)
		c.bytes -= old.size
	}
}

// size is the number of results kept.
func (c *syntaxCache) size() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// checkCached checks src, the content of the file at path, through the
// cache.
func (g *Guard) checkCached(path string, src []byte) syntax.Result {
	k, ok := g.syntaxKeyOf(path, src)
	return g.checkKeyed(path, src, k, ok)
}

// syntaxKeyOf is src's key in the cache; false when src is not checked at
// all (no language, or over the size bound), which is known at once.
func (g *Guard) syntaxKeyOf(path string, src []byte) (syntaxKey, bool) {
	lang, ok := syntax.Detect(path, src)
	if !ok || (g.syntaxLimits.MaxBytes > 0 && len(src) > g.syntaxLimits.MaxBytes) {
		return syntaxKey{}, false
	}
	return syntaxKey{lang: lang, sum: sha256.Sum256(src)}, true
}

func (g *Guard) checkKeyed(path string, src []byte, k syntaxKey, keyed bool) syntax.Result {
	ctx := context.Background()
	if !keyed {
		return syntax.Check(ctx, path, src, g.syntaxLimits) // not checked, at once
	}
	if r, ok := g.syntaxCache.get(k); ok {
		return r
	}
	if g.syntaxCache != nil {
		g.syntaxCache.parses.Add(1)
	}
	r := syntax.Check(ctx, path, src, g.syntaxLimits)
	if r.Checked {
		g.syntaxCache.put(k, r)
	}
	return r
}

// compareCached compares a change through the cache. When the side before
// is not cached, it is parsed alongside the side after, each on its own
// core: the check then takes one parse's time, not two.
func (g *Guard) compareCached(path string, before, after []byte) ([]syntax.Error, syntax.Comparison) {
	var early chan syntax.Result
	if before != nil {
		if k, ok := g.syntaxKeyOf(path, before); ok {
			early = make(chan syntax.Result, 1)
			if r, hit := g.syntaxCache.get(k); hit {
				early <- r
			} else {
				go func() { early <- g.checkKeyed(path, before, k, true) }()
			}
		}
	}
	sides := 0
	c := syntax.CompareWith(before, after, func(src []byte) syntax.Result {
		if sides++; sides == 2 && early != nil { // CompareWith checks after, then before
			return <-early
		}
		return g.checkCached(path, src)
	})
	if early != nil && sides < 2 {
		<-early // not needed after all, but no parse outlives its call
	}
	return c.Added, c
}
