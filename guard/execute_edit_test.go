package guard

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/toolguard/toolguard/repair"
)

// TestPartialPatchSkipsWhatCannotApply: with partial set, an operation
// that cannot be carried out at all (adding a file that exists, deleting
// one that does not) is left out; it must never write anything in its
// place.
func TestPartialPatchSkipsWhatCannotApply(t *testing.T) {
	tests := []struct {
		name      string
		patch     string
		partial   bool
		wantFiles map[string]string // "" = must not exist
		wantCodes []string
		applied   bool
	}{
		{
			name:      "add over an existing file, partial",
			patch:     "*** Begin Patch\n*** Add File: keep.txt\n+new\n*** Add File: b.txt\n+bee\n*** End Patch",
			partial:   true,
			wantFiles: map[string]string{"keep.txt": "keep\n", "b.txt": "bee\n"},
			wantCodes: []string{CodeFileExists},
			applied:   true,
		},
		{
			name:      "delete a missing file, partial",
			patch:     "*** Begin Patch\n*** Delete File: gone.txt\n*** Add File: c.txt\n+sea\n*** End Patch",
			partial:   true,
			wantFiles: map[string]string{"keep.txt": "keep\n", "c.txt": "sea\n", "gone.txt": ""},
			wantCodes: []string{CodeFileNotFound},
			applied:   true,
		},
		{
			name:      "update a missing file, partial",
			patch:     "*** Begin Patch\n*** Update File: gone.txt\n@@\n-a\n+b\n*** End Patch",
			partial:   true,
			wantFiles: map[string]string{"keep.txt": "keep\n", "gone.txt": ""},
			wantCodes: []string{CodeFileNotFound},
		},
		{
			name:      "all or nothing",
			patch:     "*** Begin Patch\n*** Add File: keep.txt\n+new\n*** Add File: b.txt\n+bee\n*** End Patch",
			wantFiles: map[string]string{"keep.txt": "keep\n", "b.txt": ""},
			wantCodes: []string{CodeFileExists},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, dir := newWorkspaceGuard(t)
			if err := os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("keep\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			args, _ := repair.EncodeJSON(map[string]any{"patch": tt.patch})
			ex, err := g.ExecuteEdit(context.Background(), ExecuteRequest{
				ValidateRequest: ValidateRequest{SessionID: t.Name(), Call: repair.Call{Name: "apply_patch", Form: repair.FormText, Text: string(args)}},
				Partial:         tt.partial,
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := violationCodes(ex.Verdict); !slices.Equal(got, tt.wantCodes) {
				t.Errorf("violations %v, want %v", got, tt.wantCodes)
			}
			if ex.Applied != tt.applied {
				t.Errorf("applied = %v, want %v", ex.Applied, tt.applied)
			}
			for name, want := range tt.wantFiles {
				data, err := os.ReadFile(filepath.Join(dir, name))
				switch {
				case want == "" && err == nil:
					t.Errorf("%s exists with %q", name, data)
				case want != "" && string(data) != want:
					t.Errorf("%s = %q, %v; want %q", name, data, err, want)
				}
			}
		})
	}
}
