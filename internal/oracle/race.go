//go:build race

package oracle

// Race reports a build with the race detector, which makes each case
// several times slower: the tests run fewer.
const Race = true
