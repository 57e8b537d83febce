package syntax

// treeSitterLanguages are the languages checked by a tree-sitter grammar:
// the name, the extensions and the shebang interpreters. A build with cgo
// registers each with its grammar (treesitter_grammars.go); a build without
// cgo registers each as not checked (treesitter_nocgo.go), so a file still
// tells which language it is and why it was not checked.
//
// Adding a language: a line here and its grammar's line in
// treesitter_grammars.go (TestTreeSitterGrammars holds the two together).
var treeSitterLanguages = []treeSitterLanguage{
	{"python", []string{".py", ".pyi"}, []string{"python", "python3"}},
	{"rust", []string{".rs"}, nil},
	{"java", []string{".java"}, nil},
	{"c", []string{".c", ".h"}, nil},
	{"cpp", []string{".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx"}, nil},
	{"csharp", []string{".cs"}, nil},
	{"ruby", []string{".rb"}, []string{"ruby"}},
	{"php", []string{".php"}, []string{"php"}},
	{"shell", []string{".sh", ".bash"}, []string{"sh", "bash"}},
	{"html", []string{".html", ".htm"}, nil},
}

type treeSitterLanguage struct {
	name       string
	extensions []string
	shebangs   []string
}
