//go:build cgo

package syntax

import (
	"unsafe"

	tsbash "github.com/tree-sitter/tree-sitter-bash/bindings/go"
	tscsharp "github.com/tree-sitter/tree-sitter-c-sharp/bindings/go"
	tsc "github.com/tree-sitter/tree-sitter-c/bindings/go"
	tscpp "github.com/tree-sitter/tree-sitter-cpp/bindings/go"
	tshtml "github.com/tree-sitter/tree-sitter-html/bindings/go"
	tsjava "github.com/tree-sitter/tree-sitter-java/bindings/go"
	tsphp "github.com/tree-sitter/tree-sitter-php/bindings/go"
	tspython "github.com/tree-sitter/tree-sitter-python/bindings/go"
	tsruby "github.com/tree-sitter/tree-sitter-ruby/bindings/go"
	tsrust "github.com/tree-sitter/tree-sitter-rust/bindings/go"
)

// treeSitterGrammars gives each of treeSitterLanguages its grammar, by name.
var treeSitterGrammars = map[string]func() unsafe.Pointer{
	"python": tspython.Language,
	"rust":   tsrust.Language,
	"java":   tsjava.Language,
	"c":      tsc.Language,
	"cpp":    tscpp.Language,
	"csharp": tscsharp.Language,
	"ruby":   tsruby.Language,
	"php":    tsphp.LanguagePHP, // PHP with the HTML around <?php ... ?>
	"shell":  tsbash.Language,
	"html":   tshtml.Language,
}
