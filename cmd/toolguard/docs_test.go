package main

import (
	"bufio"
	"flag"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/toolguard/toolguard/proxy"
	"github.com/toolguard/toolguard/service"
)

// docRow is one row of a flag table: | `--flag` | `ENV` | default | meaning |.
type docRow struct {
	env, def string
}

// flagTable reads the flag table of a docs page, by flag name.
func flagTable(t *testing.T, path string) map[string]docRow {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer func() { _ = f.Close() }()
	rows := map[string]docRow{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "| `--") {
			continue
		}
		cells := strings.Split(line, "|") // no cell of these tables holds a '|'
		if len(cells) < 6 {
			t.Fatalf("%s: a flag row with fewer than four cells: %s", path, line)
		}
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		name := strings.TrimPrefix(strings.Trim(cells[1], "`"), "--")
		if _, dup := rows[name]; dup {
			t.Errorf("%s: --%s is listed twice", path, name)
		}
		rows[name] = docRow{env: strings.Trim(cells[2], "`"), def: cells[3]}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return rows
}

// checkFlagTable compares a page's flag table with the settings the
// command binds: every flag listed once, with its variable and default.
func checkFlagTable[C any](t *testing.T, path string, settings []setting[C], def C) {
	t.Helper()
	rows := flagTable(t, path)
	fs := flag.NewFlagSet("doc", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cfg := def
	bindSettings(fs, settings, &cfg)
	for _, s := range settings {
		row, ok := rows[s.flag]
		if !ok {
			t.Errorf("%s: --%s is missing from the flag table", path, s.flag)
			continue
		}
		delete(rows, s.flag)
		if row.env != s.env {
			t.Errorf("%s: --%s: environment %q, want %q", path, s.flag, row.env, s.env)
		}
		if want := fs.Lookup(s.flag).DefValue; !sameDefault(row.def, want) {
			t.Errorf("%s: --%s: default %s, want `%s`", path, s.flag, row.def, want)
		}
	}
	for name := range rows {
		t.Errorf("%s: --%s is in the flag table but the command has no such flag", path, name)
	}
}

// sameDefault compares a table's default cell with the flag's default: an
// empty or "(required)" cell is an empty default, durations compare by
// value (`1m` is 1m0s), and a cell explaining a computed default (more than
// one code span) is taken as written.
func sameDefault(cell, def string) bool {
	switch {
	case cell == "" || cell == "(required)":
		return def == ""
	case strings.Count(cell, "`") > 2:
		return true
	case strings.Count(cell, "`") != 2 || !strings.HasPrefix(cell, "`") || !strings.HasSuffix(cell, "`"):
		return false
	}
	cell = strings.Trim(cell, "`")
	if cell == def {
		return true
	}
	a, errA := time.ParseDuration(cell)
	b, errB := time.ParseDuration(def)
	return errA == nil && errB == nil && a == b
}

// TestServeFlagTable keeps docs/configuration.md's table of serve's flags
// in step with the flags themselves.
func TestServeFlagTable(t *testing.T) {
	checkFlagTable(t, "../../docs/configuration.md", serveSettings, service.DefaultConfig())
}

// TestProxyFlagTable does the same for docs/proxy.md's table of the proxy's.
func TestProxyFlagTable(t *testing.T) {
	checkFlagTable(t, "../../docs/proxy.md", proxySettings, proxy.DefaultConfig())
}

// TestMCPFlagTable does the same for docs/mcp.md's table of the MCP
// server's.
func TestMCPFlagTable(t *testing.T) {
	checkFlagTable(t, "../../docs/mcp.md", mcpSettings(), defaultMCPConfig())
}

// TestCLIDocListsEveryCommand: docs/cli.md's table has a row for every
// command of the CLI, so a new command cannot go undocumented there.
func TestCLIDocListsEveryCommand(t *testing.T) {
	data, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]bool{}
	for line := range strings.Lines(string(data)) {
		if !strings.HasPrefix(line, "| `toolguard ") {
			continue
		}
		first := strings.Split(line, "|")[1]
		for _, m := range regexp.MustCompile("`toolguard ([a-z-]+)`").FindAllStringSubmatch(first, -1) {
			rows[m[1]] = true
		}
	}
	for _, c := range commands() {
		if !rows[c.name] {
			t.Errorf("docs/cli.md: no row for `toolguard %s` in the table of commands", c.name)
		}
		delete(rows, c.name)
	}
	for name := range rows {
		t.Errorf("docs/cli.md: a row for `toolguard %s`, which is no command", name)
	}
}
