package docs

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestGoVersionAgrees: the Go README asks for, and the image builds with,
// is go.mod's (the golang images do not fetch a newer toolchain).
func TestGoVersionAgrees(t *testing.T) {
	m := regexp.MustCompile(`(?m)^go (\S+)$`).FindStringSubmatch(read(t, "../go.mod"))
	if m == nil {
		t.Fatal("go.mod: no go line")
	}
	want := m[1]
	if !strings.Contains(read(t, "../README.md"), "Needs Go "+want+" or later") {
		t.Errorf("README.md does not say \"Needs Go %s or later\", go.mod's version", want)
	}
	if !strings.Contains(read(t, "../deploy/Dockerfile"), "ARG GO_VERSION="+want+"\n") {
		t.Errorf("deploy/Dockerfile does not build with Go %s, go.mod's version", want)
	}
}

// TestMakeHelpExpanded: make help prints the targets' descriptions with the
// variables they name expanded ("127.0.0.1:7700", not "$(LISTEN)").
func TestMakeHelpExpanded(t *testing.T) {
	out, err := exec.Command("make", "-s", "-C", "..", "help").CombinedOutput()
	if err != nil {
		t.Fatalf("make help: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "$(") {
		t.Errorf("make help prints a variable unexpanded:\n%s", out)
	}
	if !strings.Contains(string(out), "127.0.0.1:7700") {
		t.Errorf("make help does not give run's address:\n%s", out)
	}
}

// TestPackagesCarryLicense: the npm tarball and the Python wheel are built
// from their client's folder, so each holds a copy of LICENSE (the pack and
// wheel tests check it is packed); the copies must be the license.
func TestPackagesCarryLicense(t *testing.T) {
	want := read(t, "../LICENSE")
	for _, copy := range []string{"../clients/python/LICENSE", "../clients/typescript/LICENSE"} {
		if read(t, copy) != want {
			t.Errorf("%s differs from LICENSE: cp LICENSE %s", copy, strings.TrimPrefix(copy, "../"))
		}
	}
}

// TestDeploymentNamesEveryOverlay: deployment.md's first command block
// applies every overlay and example under deploy/, so a new one cannot be
// left out of the page's count.
func TestDeploymentNamesEveryOverlay(t *testing.T) {
	page := read(t, "deployment.md")
	for _, dir := range []string{"overlays", "examples"} {
		entries, err := os.ReadDir("../deploy/" + dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.IsDir() && !strings.Contains(page, "kubectl apply -k deploy/"+dir+"/"+e.Name()+" ") {
				t.Errorf("deployment.md does not apply deploy/%s/%s", dir, e.Name())
			}
		}
	}
}
