package guard

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/toolguard/toolguard/repair"
)

// raceCalls runs calls at once and returns how many applied; a call that
// fails outright fails the test.
func raceCalls(t *testing.T, g *Guard, calls []ValidateRequest) int {
	t.Helper()
	var wg sync.WaitGroup
	var mu sync.Mutex
	applied := 0
	start := make(chan struct{})
	for _, c := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			ex, err := g.ExecuteEdit(context.Background(), ExecuteRequest{ValidateRequest: c})
			if err != nil {
				t.Error(err)
				return
			}
			if ex.Applied {
				mu.Lock()
				applied++
				mu.Unlock()
			}
		}()
	}
	close(start)
	wg.Wait()
	return applied
}

func callOf(session, tool string, args map[string]any) ValidateRequest {
	text, _ := repair.EncodeJSON(args)
	return ValidateRequest{SessionID: session, Call: repair.Call{Name: tool, Form: repair.FormText, Text: string(text)}}
}

// TestChangeToolsRace: concurrent changes of the same paths: each applied
// once, nothing lost, nothing applied twice.
func TestChangeToolsRace(t *testing.T) {
	const n = 8
	put := func(t *testing.T, dir, rel, s string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(t *testing.T, dir, rel string) (string, bool) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, rel))
		return string(b), err == nil
	}
	t.Run("move", func(t *testing.T) {
		g, dir := newWorkspaceGuard(t)
		put(t, dir, "a.txt", "a\n")
		var calls []ValidateRequest
		for i := range n {
			calls = append(calls, callOf(fmt.Sprint("m", i), "move_file", map[string]any{"source": "a.txt", "destination": fmt.Sprintf("b%d.txt", i%2)}))
		}
		if got := raceCalls(t, g, calls); got != 1 {
			t.Fatalf("%d moves applied, want 1", got)
		}
		b0, ok0 := read(t, dir, "b0.txt")
		b1, ok1 := read(t, dir, "b1.txt")
		if _, ok := read(t, dir, "a.txt"); ok || ok0 == ok1 || b0+b1 != "a\n" {
			t.Fatalf("after: a gone? b0 %q %v, b1 %q %v", b0, ok0, b1, ok1)
		}
	})
	t.Run("delete", func(t *testing.T) {
		g, dir := newWorkspaceGuard(t)
		put(t, dir, "a.txt", "a\n")
		var calls []ValidateRequest
		for i := range n {
			calls = append(calls, callOf(fmt.Sprint("d", i), "delete_file", map[string]any{"path": "a.txt"}))
		}
		if got := raceCalls(t, g, calls); got != 1 {
			t.Fatalf("%d deletes applied, want 1", got)
		}
		if _, ok := read(t, dir, "a.txt"); ok {
			t.Fatal("a.txt still there")
		}
	})
	t.Run("create directory", func(t *testing.T) {
		g, dir := newWorkspaceGuard(t)
		var calls []ValidateRequest
		for i := range n {
			calls = append(calls, callOf(fmt.Sprint("c", i), "create_directory", map[string]any{"path": "x/y"}))
		}
		if got := raceCalls(t, g, calls); got != 1 {
			t.Fatalf("%d folders created, want 1", got)
		}
		if st, err := os.Stat(filepath.Join(dir, "x/y")); err != nil || !st.IsDir() {
			t.Fatalf("x/y: %v", err)
		}
	})
	t.Run("insert", func(t *testing.T) {
		g, dir := newWorkspaceGuard(t)
		put(t, dir, "a.txt", "first\nlast\n")
		var calls []ValidateRequest
		for i := range n {
			calls = append(calls, callOf(fmt.Sprint("i", i), "insert_text", map[string]any{"path": "a.txt", "insert_line": 1, "new_text": fmt.Sprint("line ", i)}))
		}
		if got := raceCalls(t, g, calls); got != n {
			t.Fatalf("%d inserts applied, want %d", got, n)
		}
		got, _ := read(t, dir, "a.txt")
		lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
		if len(lines) != n+2 || lines[0] != "first" || lines[n+1] != "last" {
			t.Fatalf("after: %q", got)
		}
		for i := range n {
			if strings.Count(got, fmt.Sprintf("line %d\n", i)) != 1 {
				t.Fatalf("line %d not once in %q", i, got)
			}
		}
	})
	t.Run("undo", func(t *testing.T) {
		g, dir := newWorkspaceGuard(t)
		put(t, dir, "a.txt", "zero\n")
		if got := raceCalls(t, g, []ValidateRequest{callOf("u", "edit", map[string]any{"path": "a.txt", "old_text": "zero", "new_text": "one"})}); got != 1 {
			t.Fatal("edit not applied")
		}
		if got := raceCalls(t, g, []ValidateRequest{callOf("u", "edit", map[string]any{"path": "a.txt", "old_text": "one", "new_text": "two"})}); got != 1 {
			t.Fatal("second edit not applied")
		}
		var calls []ValidateRequest
		for range n {
			calls = append(calls, callOf("u", "undo_edit", map[string]any{"path": "a.txt"}))
		}
		// Each undo takes back one change, the newest first: two of them
		// apply, whatever the order, and the file is as it was.
		if got := raceCalls(t, g, calls); got != 2 {
			t.Fatalf("%d undos applied, want 2", got)
		}
		if got, _ := read(t, dir, "a.txt"); got != "zero\n" {
			t.Fatalf("after: %q", got)
		}
	})
	t.Run("move and delete", func(t *testing.T) {
		g, dir := newWorkspaceGuard(t)
		put(t, dir, "a.txt", "a\n")
		var calls []ValidateRequest
		for i := range n {
			if i%2 == 0 {
				calls = append(calls, callOf(fmt.Sprint("md", i), "move_file", map[string]any{"source": "a.txt", "destination": "b.txt"}))
			} else {
				calls = append(calls, callOf(fmt.Sprint("md", i), "delete_file", map[string]any{"path": "a.txt"}))
			}
		}
		if got := raceCalls(t, g, calls); got != 1 {
			t.Fatalf("%d applied, want 1", got)
		}
		if _, ok := read(t, dir, "a.txt"); ok {
			t.Fatal("a.txt still there")
		}
	})
}
