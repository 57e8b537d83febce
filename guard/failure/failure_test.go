package failure_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/guard/failure"
	"github.com/toolguard/toolguard/guard/failure/failuretest"
	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/workspace"
)

// TestClassify: one error of each kind the core returns, wrapped as the
// guard wraps them; the front ends' tests render the same list.
func TestClassify(t *testing.T) {
	for _, tt := range failuretest.Cases() {
		t.Run(tt.Name, func(t *testing.T) {
			f := failure.Classify(tt.Err)
			if f.Kind != tt.Kind || f.Reason != tt.Reason {
				t.Fatalf("Classify(%v) = %v %q, want %v %q", tt.Err, f.Kind, f.Reason, tt.Kind, tt.Reason)
			}
			if f.Reason != "" {
				in, ok := failure.Lookup(f.Reason)
				if !ok || in.Kind != f.Kind {
					t.Fatalf("reason %q: table says %v (listed %v), Classify %v", f.Reason, in.Kind, ok, f.Kind)
				}
			}
			if f.Message == "" {
				t.Fatal("no message")
			}
		})
	}
}

func TestClassifyDetails(t *testing.T) {
	ref := &guard.InvalidToolDefinitionError{Index: 2, Name: "t", Err: fmt.Errorf("compile: %w", &repair.SchemaRefError{Ref: "http://x"})}
	f := failure.Classify(ref)
	if f.Reason != failure.SchemaRefNotAllowed || f.Field != "tools[2]" || f.Meta["ref"] != "http://x" || f.Meta["tool"] != "t" {
		t.Fatalf("schema ref: %+v", f)
	}
	locked := failure.Classify(fmt.Errorf("edit: %w", &workspace.LockTimeoutError{Path: "a.go", Waited: 10 * time.Second}))
	if !locked.Retryable() || locked.RetryAfter != failure.LockRetryDelay || locked.Subject != "a.go" || locked.Meta["waited"] != "10s" {
		t.Fatalf("locked: %+v", locked)
	}
	mismatch := failure.Classify(fmt.Errorf("edit: %w", fmt.Errorf("%w: start it with --lock-dir", workspace.ErrLockDirMismatch)))
	if mismatch.Reason != failure.LockDirMismatch || mismatch.Kind != failure.Storage || mismatch.Retryable() || !strings.Contains(mismatch.Message, "--lock-dir") {
		t.Fatalf("lock dir mismatch: %+v", mismatch)
	}
	if internal := failure.Classify(errors.New("secret cause")); strings.Contains(internal.Message, "secret") || internal.Retryable() {
		t.Fatalf("internal: %+v", internal)
	}
}

// TestTable: each reason once, upper snake case, with a kind and a
// description; every kind has a name.
func TestTable(t *testing.T) {
	seen := map[failure.Reason]bool{}
	word := regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$`)
	for _, in := range failure.Reasons() {
		if seen[in.Reason] || !word.MatchString(string(in.Reason)) || in.Description == "" || in.Kind == failure.Internal {
			t.Errorf("row %+v: duplicate, badly named, undescribed or internal", in)
		}
		seen[in.Reason] = true
	}
	for _, k := range failure.Kinds() {
		if strings.HasPrefix(k.String(), "kind(") {
			t.Errorf("kind %d has no name", k)
		}
	}
}

// TestReasonsInSource: every reason a front end writes as a literal
// (Reason: "X", a status's reason) is in the table, so a new one cannot be
// added in one file only.
func TestReasonsInSource(t *testing.T) {
	lit := regexp.MustCompile(`(?:Reason:\s*|withDetails\([^,]+,[^,]+,\s*)"([A-Z][A-Z0-9_]+)"`)
	root := filepath.Join("..", "..")
	for _, dir := range []string{"service", "service/protoapi", "mcp", "proxy", "cmd/toolguard", "guard"} {
		files, _ := filepath.Glob(filepath.Join(root, dir, "*.go"))
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range lit.FindAllStringSubmatch(string(src), -1) {
				if _, ok := failure.Lookup(failure.Reason(m[1])); !ok {
					t.Errorf("%s: reason %s is not in failure's table", file, m[1])
				}
			}
		}
	}
}

// TestDocsTable: docs/codes.md's table of reasons is this package's table,
// so the list is typed once. On a difference the test prints the table.
func TestDocsTable(t *testing.T) {
	var b strings.Builder
	b.WriteString("| reason | kind | retry | meaning |\n|---|---|---|---|\n")
	for _, in := range failure.Reasons() {
		retry := ""
		if in.Retryable {
			retry = "yes"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", in.Reason, in.Kind, retry, in.Description)
	}
	src, err := os.ReadFile(filepath.Join("..", "..", "docs", "codes.md"))
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- reasons:begin -->\n", "<!-- reasons:end -->"
	doc := string(src)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("docs/codes.md has no %q … %q section", begin, end)
	}
	if got := doc[i+len(begin) : j]; got != b.String() {
		t.Fatalf("docs/codes.md's reasons differ from failure's table; it should read:\n%s", b.String())
	}
}
