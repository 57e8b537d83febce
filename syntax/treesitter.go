//go:build cgo

package syntax

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	ts "github.com/tree-sitter/go-tree-sitter"
)

func init() {
	for _, l := range treeSitterLanguages {
		grammar, ok := treeSitterGrammars[l.name]
		if !ok {
			continue // TestTreeSitterGrammars says which
		}
		g := &treeSitter{lang: ts.NewLanguage(grammar()), idle: make(chan *ts.Parser, parsersKept)}
		register(l.name, l.extensions, l.shebangs, l.memory, g.check)
	}
}

// parsersKept bounds the idle parsers kept per language: a parser holds
// C memory, so the ones beyond it are closed rather than pooled (sync.Pool
// would drop them without closing).
const parsersKept = 4

// readChunk bounds what the parser is handed per read: the bindings copy
// each read into C memory, and a parser that steps back (Python's scanner
// does, to each line's start, for the indentation) reads again; 64 KiB
// reads made a Python parse four times slower than 4 KiB ones.
const readChunk = 4 << 10

// treeSitter checks one language with its grammar.
type treeSitter struct {
	lang *ts.Language
	idle chan *ts.Parser
}

func (g *treeSitter) check(ctx context.Context, src []byte, max int) ([]Error, error) {
	tree, err := g.parse(ctx, src, nil)
	if err != nil {
		return nil, err
	}
	defer tree.Close()
	return treeErrors(tree.RootNode(), src, max), nil
}

// parse parses src, reusing old (already edited to match src) when given,
// and stops when ctx is done.
func (g *treeSitter) parse(ctx context.Context, src []byte, old *ts.Tree) (*ts.Tree, error) {
	p, err := g.parser()
	if err != nil {
		return nil, err
	}
	defer g.release(p)

	// The cancellation flag is read by C during the parse: pinned, it may
	// be. A fresh one per parse, so a late store from AfterFunc can touch
	// only a flag no parse reads any more. (ParseWithOptions' progress
	// callback would do too, but v0.25.0 keeps a handle to its options per
	// call, never released: a leak per check in a server.)
	flag := new(uintptr)
	var pin runtime.Pinner
	pin.Pin(flag)
	defer pin.Unpin()
	p.SetCancellationFlag(flag)      //nolint:staticcheck // see above
	defer p.SetCancellationFlag(nil) //nolint:staticcheck // see above
	if ctx.Err() != nil {
		*flag = 1 // the parse stops at its first look at the flag
	}
	stop := context.AfterFunc(ctx, func() { atomic.StoreUintptr(flag, 1) })
	defer stop()

	tree := p.ParseWithOptions(func(i int, _ ts.Point) []byte {
		if i >= len(src) {
			return nil
		}
		return src[i:min(i+readChunk, len(src))]
	}, old, nil)
	if tree == nil {
		p.Reset() // else the next parse resumes this one
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return nil, errors.New("the parser stopped")
	}
	return tree, nil
}

func (g *treeSitter) parser() (*ts.Parser, error) {
	select {
	case p := <-g.idle:
		return p, nil
	default:
	}
	p := ts.NewParser()
	if err := p.SetLanguage(g.lang); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

func (g *treeSitter) release(p *ts.Parser) {
	select {
	case g.idle <- p:
	default:
		p.Close()
	}
}

// treeErrors walks the parts of the tree that hold an error (a clean
// subtree is skipped whole) and reports each ERROR node, as unexpected
// text, and each MISSING node, as what the parser had to invent. An ERROR
// node starts where the parser's recovery began, which is at or before
// the mistake: the line is right more often than the column.
func treeErrors(root *ts.Node, src []byte, max int) []Error {
	if !root.HasError() {
		return nil
	}
	c := root.Walk()
	defer c.Close()
	var out []Error
	for len(out) < max {
		n := c.Node()
		descend := false
		switch {
		case n.IsMissing():
			out = append(out, nodeError(n, "missing "+quoteKind(n)))
		case n.IsError():
			out = append(out, nodeError(n, errorText(n, src)))
		case n.HasError():
			descend = c.GotoFirstChild()
		}
		if descend {
			continue
		}
		for !c.GotoNextSibling() {
			if !c.GotoParent() {
				return out
			}
		}
	}
	return out
}

func nodeError(n *ts.Node, msg string) Error {
	p := n.StartPosition()
	return Error{Line: int(p.Row) + 1, Column: int(p.Column) + 1, Message: msg}
}

// quoteKind names a node's kind: a token as written (`)`), a named node
// by its name (identifier).
func quoteKind(n *ts.Node) string {
	if n.IsNamed() {
		return strings.ReplaceAll(n.Kind(), "_", " ")
	}
	return "`" + n.Kind() + "`"
}

// maxShown bounds the text an error quotes.
const maxShown = 40

// errorText says what the parser could not place: one token is
// unexpected; a longer stretch is quoted from its start, its first line.
func errorText(n *ts.Node, src []byte) string {
	start, end := n.StartByte(), n.EndByte()
	if end > uint(len(src)) || start >= end {
		return "unexpected end of file"
	}
	verb := "cannot parse "
	if n.ChildCount() == 0 || n.ChildCount() == 1 && n.Child(0).ChildCount() == 0 {
		verb = "unexpected "
	}
	text, _, cut := cutLine(src[start:end])
	if len(text) > maxShown {
		text, cut = text[:maxShown], true
		for len(text) > 0 && !utf8.Valid(text) {
			text = text[:len(text)-1]
		}
	}
	if cut {
		return fmt.Sprintf("%s`%s…`", verb, text)
	}
	return fmt.Sprintf("%s`%s`", verb, text)
}

func cutLine(b []byte) (line, rest []byte, cut bool) {
	for i, c := range b {
		if c == '\n' || c == '\r' {
			return b[:i], b[i:], true
		}
	}
	return b, nil, false
}
