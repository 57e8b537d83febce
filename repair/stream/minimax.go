package stream

// miniMax is MiniMax-M2's format, optionally inside <minimax:tool_call>:
// <invoke name="name"><parameter name="key">value</parameter></invoke>.
var miniMax = prefixedTags{
	wrappers: []string{"<minimax:tool_call>", "</minimax:tool_call>"},
	callTag:  "<invoke name=",
	paramTag: "<parameter name=",
	endTag:   "</invoke>",
	quoted:   true,
}
