package stream

// formats registers every format once: its name (the API's, the CLI's and
// the metrics'), the machine that reads it in text, and whether white
// space around its calls is layout (layout.go). Names, lists and the API's
// mapping are derived from this table; a new format is a row here and a
// file of its own.
var formats = map[Format]struct {
	name   string
	syntax textFormat // nil: calls arrive as ToolDelta fragments
	layout bool
}{
	XMLTags:     {name: "xml_tags", syntax: xmlTags{}},
	OpenAI:      {name: "openai"},
	Anthropic:   {name: "anthropic"},
	Hermes:      {name: "hermes", syntax: hermes{}, layout: true},
	QwenXML:     {name: "qwen_xml", syntax: qwenXML, layout: true},
	MiniMax:     {name: "minimax", syntax: miniMax, layout: true},
	GLM45:       {name: "glm45", syntax: glm45{}, layout: true},
	Harmony:     {name: "harmony", syntax: harmony{}, layout: true},
	DeepSeekV3:  {name: "deepseek_v3", syntax: deepSeek{v3: true}, layout: true},
	DeepSeekV31: {name: "deepseek_v31", syntax: deepSeek{}, layout: true},
	KimiK2:      {name: "kimi_k2", syntax: kimi{}, layout: true},
	Mistral:     {name: "mistral", syntax: mistral{}, layout: true},
	Pythonic:    {name: "pythonic", syntax: pythonic{}, layout: true},
	Llama3JSON:  {name: "llama3_json", syntax: llama3{}, layout: true},
	ClaudeXML:   {name: "claude_xml", syntax: claudeXML, layout: true},
	Auto:        {name: "auto", syntax: auto{}, layout: true},
}
