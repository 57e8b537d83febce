package syntax

// treeSitterLanguages are the languages checked by a tree-sitter grammar:
// the name, the extensions, the shebang interpreters, and the bytes a
// check holds per byte of the file (the tree, in C memory: measured by
// BenchmarkSyntaxMemory, plus a quarter, docs/limits.md). A build with cgo
// registers each with its grammar (treesitter_grammars.go); a build without
// cgo registers each as not checked (treesitter_nocgo.go), so a file still
// tells which language it is and why it was not checked.
//
// Adding a language: a line here and its grammar's line in
// treesitter_grammars.go (TestTreeSitterGrammars holds the two together).
var treeSitterLanguages = []treeSitterLanguage{
	{"python", []string{".py", ".pyi"}, []string{"python", "python3"}, 40},
	{"rust", []string{".rs"}, nil, 48},
	{"java", []string{".java"}, nil, 42},
	{"c", []string{".c", ".h"}, nil, 40},
	{"cpp", []string{".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx"}, nil, 40},
	{"csharp", []string{".cs"}, nil, 56},
	{"ruby", []string{".rb"}, []string{"ruby"}, 80},
	{"php", []string{".php"}, []string{"php"}, 64},
	{"shell", []string{".sh", ".bash"}, []string{"sh", "bash"}, 40},
	{"html", []string{".html", ".htm"}, nil, 32},
}

type treeSitterLanguage struct {
	name       string
	extensions []string
	shebangs   []string
	memory     int
}
