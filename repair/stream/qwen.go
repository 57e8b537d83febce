package stream

// qwenXML is Qwen3-Coder's format, optionally inside Hermes's <tool_call>:
// <function=name><parameter=key>value</parameter></function>.
var qwenXML = prefixedTags{
	wrappers: []string{hermesOpen, hermesClose},
	callTag:  "<function=",
	paramTag: "<parameter=",
	endTag:   "</function>",
}
