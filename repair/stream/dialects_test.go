package stream

import (
	"slices"

	"github.com/toolguard/toolguard/repair"
)

// dialectCases are streamCases of what real models and servers make of
// their formats: tokens a server swallowed or stripped, tags a model left
// out. TestParser and TestChunkInvariance run them in every split.
func dialectCases() []streamCase {
	return slices.Concat(harmonyStopCases())
}

// harmonyStopCases: vLLM, Ollama and LM Studio take gpt-oss's <|call|> for
// a stop token and keep it, so a body complete when the response ends is
// the whole call, with or without white space after it; a body cut short
// is truncated.
func harmonyStopCases() []streamCase {
	head := "<|channel|>analysis<|message|>Need to write hello.py.<|end|><|start|>assistant<|channel|>commentary to=functions.write_to_file <|constrain|>json<|message|>"
	args := `{"path": "hello.py", "content": "print(\"hi\")\n"}`
	whole := outcome{
		Text:   "Need to write hello.py.",
		Starts: map[int]string{0: "write_to_file"},
		Shown:  map[int]map[string]string{0: {"path": "hello.py", "content": "print(\"hi\")\n"}},
		Calls:  []closed{{Index: 0, Name: "write_to_file", Form: repair.FormText, Text: args}},
	}
	var cases []streamCase
	for _, f := range []Format{Harmony, Auto} {
		for _, end := range []struct{ name, tail string }{
			{"right after the closing brace", ""},
			{"then a newline", "\n"},
			{"then spaces and blank lines", "  \n\n"},
		} {
			cases = append(cases, streamCase{
				name:   f.String() + " gpt-oss <|call|> swallowed as a stop token, the response ending " + end.name,
				format: f, pieces: []piece{text(head + args + end.tail)}, want: whole,
			})
		}
		cases = append(cases, streamCase{
			name:   f.String() + " gpt-oss cut inside its arguments, <|call|> never came",
			format: f, pieces: []piece{text(head + `{"path": "hello.py", "content": "pri`)},
			want: outcome{
				Text:   "Need to write hello.py.",
				Starts: map[int]string{0: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "hello.py", "content": "pri"}},
				Calls:  []closed{{Index: 0, Name: "write_to_file", Form: repair.FormText, Text: `{"path": "hello.py", "content": "pri`, Truncated: true}},
			},
		})
	}
	return cases
}
