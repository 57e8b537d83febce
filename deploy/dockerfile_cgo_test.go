package deploy

import (
	"os"
	"strings"
	"testing"
)

// TestDockerfileCgo: the image checks the tree-sitter languages, so its
// binary is built with cgo, natively (no cross compiler in the build
// stage) and statically (the final stage has no C library), with Go's own
// resolver and user lookups. `make test-nocgo` covers the build without.
func TestDockerfileCgo(t *testing.T) {
	data, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for l := range strings.Lines(string(data)) {
		if l = strings.TrimSpace(l); !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	text := strings.Join(lines, "\n")
	doc, err := os.ReadFile("../docs/syntax-check.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"CGO_ENABLED=1", "-tags netgo,osusergo", "-linkmode external", "-extldflags -static"} {
		if !strings.Contains(text, want) {
			t.Errorf("Dockerfile: no %q", want)
		}
		if !strings.Contains(string(doc), want) {
			t.Errorf("docs/syntax-check.md, the build it shows: no %q", want)
		}
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "FROM golang:") || strings.HasPrefix(l, "FROM --platform=$BUILDPLATFORM") {
			if strings.Contains(l, "$BUILDPLATFORM") || strings.Contains(l, "CGO_ENABLED=0") {
				t.Errorf("%s: the build stage cross-compiles, which cgo cannot without a cross compiler", l)
			}
		}
	}
}

// TestDockerfileVersion: the image's binary is stamped from the VERSION
// file, as make build stamps it, unless a build argument says otherwise;
// the build context holds the file.
func TestDockerfileVersion(t *testing.T) {
	data, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ARG VERSION=\n", `version="${VERSION:-v$(cat VERSION)}"`, "-X main.version=${version}"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("Dockerfile: no %q", want)
		}
	}
	ignore, err := os.ReadFile("Dockerfile.dockerignore")
	if err != nil {
		t.Fatal(err)
	}
	for l := range strings.Lines(string(ignore)) {
		if l = strings.TrimSpace(l); l == "VERSION" || l == "*" || l == "/VERSION" {
			t.Errorf("Dockerfile.dockerignore leaves VERSION out of the build context (%q)", l)
		}
	}
}
