package stream

// claudeXML is the <function_calls> block: MiniMax's invoke and parameter
// tags in another wrapper,
// <function_calls><invoke name="name"><parameter name="key">value</parameter></invoke></function_calls>.
// The values are text, typed by the tool's schema in the pipeline.
var claudeXML = prefixedTags{
	wrappers: []string{"<function_calls>", "</function_calls>"},
	callTag:  miniMax.callTag,
	paramTag: miniMax.paramTag,
	endTag:   miniMax.endTag,
	quoted:   true,
}
