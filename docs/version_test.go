package docs

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestVersionsAgree: VERSION is the one version of the server (make build,
// the image) and the clients. Each client's package file holds a copy
// (scripts/version.sh writes them), and the CHANGELOG's latest release is
// VERSION.
func TestVersionsAgree(t *testing.T) {
	want := strings.TrimSpace(read(t, "../VERSION"))
	if !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(want) {
		t.Fatalf("VERSION is %q, want MAJOR.MINOR.PATCH", want)
	}
	copies := []struct {
		file string
		re   string
	}{
		{"../clients/python/pyproject.toml", `(?m)^version = "([^"]*)"`},
		{"../clients/python/toolguard_client/_version.py", `(?m)^__version__ = "([^"]*)"`},
		{"../clients/typescript/src/version.ts", `(?m)^export const VERSION = "([^"]*)";`},
		{"../CHANGELOG.md", `(?m)^## \[(\d[^\]]*)\]`},
	}
	for _, c := range copies {
		m := regexp.MustCompile(c.re).FindStringSubmatch(read(t, c.file))
		if m == nil || m[1] != want {
			t.Errorf("%s: version %v, want VERSION's %s (run scripts/version.sh)", c.file, m, want)
		}
	}
	for _, file := range []string{"../clients/typescript/package.json", "../clients/typescript/package-lock.json"} {
		var pkg struct {
			Version  string `json:"version"`
			Packages map[string]struct {
				Version string `json:"version"`
			} `json:"packages"`
		}
		if err := json.Unmarshal([]byte(read(t, file)), &pkg); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if pkg.Version != want {
			t.Errorf("%s: version %q, want VERSION's %s (run scripts/version.sh)", file, pkg.Version, want)
		}
		if root, ok := pkg.Packages[""]; ok && root.Version != want {
			t.Errorf("%s: the root package's version %q, want %s", file, root.Version, want)
		}
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
