package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/toolguard/toolguard/mcp"
)

// The filesystem profile takes its allowed directories as the reference
// server does, after the flags: `toolguard mcp --profile filesystem /a /b`.
// The first is the default workspace (relative paths act in it), each
// other one a workspace of its own; absolute paths pick theirs.

func (c *mcpConfig) setArgs(args []string) { c.AllowedDirs = append(c.AllowedDirs, args...) }

func (c mcpConfig) validateProfile() error {
	if c.Profile != "" && !slices.Contains(mcp.Profiles, c.Profile) {
		return fmt.Errorf("--profile %q: want one of %s", c.Profile, strings.Join(mcp.Profiles, ", "))
	}
	if len(c.AllowedDirs) > 0 && c.Profile != mcp.ProfileFilesystem {
		return fmt.Errorf("unexpected argument %q: directories after the flags are the allowed directories of --profile filesystem; "+
			"otherwise give the workspace with --workspace", c.AllowedDirs[0])
	}
	if len(c.AllowedDirs) > 0 && len(c.Workspaces) > 0 {
		return errors.New("give the allowed directories either after the flags or with --workspaces, not both")
	}
	return nil
}

// withAllowedDirs makes the positional directories the workspaces.
func (c mcpConfig) withAllowedDirs() mcpConfig {
	if len(c.AllowedDirs) == 0 {
		return c
	}
	c.Workspace = c.AllowedDirs[0]
	c.Workspaces = nil
	for i, d := range c.AllowedDirs[1:] {
		c.Workspaces = append(c.Workspaces, fmt.Sprintf("allowed-%d=%s", i+2, d))
	}
	return c
}
