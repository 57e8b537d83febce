package repair

// Repair codes: each names one kind of change made to a call.
const (
	CodeToolAlias               = "TOOL_ALIAS"
	CodeAliasRenamed            = "ALIAS_RENAMED"
	CodeRawArgumentsUnwrapped   = "RAW_ARGUMENTS_UNWRAPPED"
	CodeDoubleEncoded           = "DOUBLE_ENCODED"
	CodeJSONRepaired            = "JSON_REPAIRED"
	CodePythonLiteral           = "PYTHON_LITERAL"
	CodeCodeFenceStripped       = "CODE_FENCE_STRIPPED"
	CodeEscapesDecoded          = "ESCAPES_DECODED"
	CodeHTMLEntitiesDecoded     = "HTML_ENTITIES_DECODED"
	CodeLineNumbersStripped     = "LINE_NUMBERS_STRIPPED"
	CodeTypeCoerced             = "TYPE_COERCED"
	CodeDuplicateDropped        = "DUPLICATE_DROPPED"
	CodeReplacementCharsRemoved = "REPLACEMENT_CHARS_REMOVED"
	// CodeCommentaryDropped: a commentary parameter the schema does not
	// declare (explanation, reason) was dropped: it cannot change what the
	// call does (nearmiss.go).
	CodeCommentaryDropped = "COMMENTARY_DROPPED"
	// CodeXMLRepaired: a tag the model left out, inferred while the call
	// was split out of its text (a stream parser's).
	CodeXMLRepaired = "XML_REPAIRED"
	// CodeLineEndingsKept: a write's LF-only content took the file's CRLF
	// and BOM (the call's arguments keep the content as sent).
	CodeLineEndingsKept = "LINE_ENDINGS_KEPT"
)

// Violation codes: each names one kind of problem that makes a call unusable.
const (
	CodeMissingRequired    = "MISSING_REQUIRED"
	CodeUnexpectedParam    = "UNEXPECTED_PARAM"
	CodeWrongType          = "WRONG_TYPE"
	CodeInvalidValue       = "INVALID_VALUE"
	CodeConflictingParams  = "CONFLICTING_PARAMS"
	CodeUnparseable        = "UNPARSEABLE"
	CodeUnknownTool        = "UNKNOWN_TOOL"
	CodeUnsupportedCommand = "UNSUPPORTED_COMMAND"
	CodeTruncated          = "TRUNCATED"
	CodePlaceholderContent = "PLACEHOLDER_CONTENT"
	CodeRepeatedCall       = "REPEATED_CALL"
	CodeOutsideWorkspace   = "OUTSIDE_WORKSPACE"
	CodeDeniedPath         = "DENIED_PATH"
)
