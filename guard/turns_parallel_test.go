package guard

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolguard/toolguard/repair"
)

// TestParallelCallsCountOncePerTurn: a model turn of parallel tool calls
// (OpenAI parallel_tool_calls, several Anthropic tool_use blocks) is
// validated call by call, then executed call by call: each call counts
// once, and a read between a validation and its execution keeps its turn
// open. In memory and in Redis.
func TestParallelCallsCountOncePerTurn(t *testing.T) {
	badA := repair.Call{Name: "write_to_file", Form: repair.FormText, Text: `{"path":"a.txt"}`}
	badB := repair.Call{Name: "write_to_file", Form: repair.FormText, Text: `{"content":"x"}`}
	good := repair.Call{Name: "write_to_file", Form: repair.FormText, Text: `{"content":"hi\n","path":"a.txt"}`}
	type step struct {
		op          byte // 'v' Validate, 'w' ExecuteWrite, 'r' ReadFile
		call        repair.Call
		id          string
		consecutive uint32
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"two bad calls with ids: 1, 2, 2, 2", []step{
			{'v', badA, "call_a", 1}, {'v', badB, "call_b", 2}, {'w', badA, "call_a", 2}, {'w', badB, "call_b", 2},
			{'v', badA, "call_c", 3}, // the next model turn
		}},
		{"two bad calls without ids: 1, 2, 2, 2", []step{
			{'v', badA, "", 1}, {'v', badB, "", 2}, {'w', badA, "", 2}, {'w', badB, "", 2},
		}},
		{"executed in the other order", []step{
			{'v', badA, "call_a", 1}, {'v', badB, "call_b", 2}, {'w', badB, "call_b", 2}, {'w', badA, "call_a", 2},
		}},
		{"a read between a validation and its execution", []step{
			{'v', badA, "call_a", 1}, {'r', repair.Call{}, "", 0}, {'w', badA, "call_a", 0},
			{'v', good, "call_g", 0}, {'r', repair.Call{}, "", 0}, {'w', good, "call_g", 0},
		}},
	}
	for name, open := range storeGuards(t) {
		for _, tt := range tests {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				g, dir := open(t)
				if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("present\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				ctx := context.Background()
				for i, st := range tt.steps {
					var m MistakeState
					switch st.op {
					case 'r':
						r, err := g.ReadFile(ctx, ReadRequest{RequestContext: RequestContext{SessionID: "turns"}, Path: "f.txt"})
						if err != nil {
							t.Fatal(err)
						}
						m = r.Mistakes
					default:
						m = doTurn(t, g, turn{op: st.op, call: st.call, id: st.id}).Mistakes
					}
					if m.Consecutive != st.consecutive || m.NotCounted {
						t.Fatalf("step %d %c %s: mistakes %+v, want %d", i, st.op, st.id, m, st.consecutive)
					}
				}
			})
		}
	}
}
