package failure

// Reason is a failure's stable name: the google.rpc.ErrorInfo reason over
// gRPC (domain toolguard.dev), and what the other front ends log and say.
type Reason string

// The reasons. Each is listed once in table below, with its kind; the docs'
// table (docs/codes.md) is checked against it.
const (
	// The caller's mistakes in a request (the gRPC API's request checks).
	SessionIDRequired     Reason = "SESSION_ID_REQUIRED"
	SessionIDTooLong      Reason = "SESSION_ID_TOO_LONG"
	SessionIDInvalid      Reason = "SESSION_ID_INVALID"
	ModelIDTooLong        Reason = "MODEL_ID_TOO_LONG"
	WorkspaceNameTooLong  Reason = "WORKSPACE_NAME_TOO_LONG"
	InvalidSHA256         Reason = "INVALID_SHA256"
	CallRequired          Reason = "CALL_REQUIRED"
	ToolNameRequired      Reason = "TOOL_NAME_REQUIRED"
	ToolNameTooLong       Reason = "TOOL_NAME_TOO_LONG"
	ToolSchemaRequired    Reason = "TOOL_SCHEMA_REQUIRED"
	TooManyTools          Reason = "TOO_MANY_TOOLS"
	UnknownToolName       Reason = "UNKNOWN_TOOL_NAME"
	StreamFormatRequired  Reason = "STREAM_FORMAT_REQUIRED"
	ToolCallsNotInFormat  Reason = "TOOL_CALLS_NOT_IN_FORMAT"
	StartFrameRequired    Reason = "START_FRAME_REQUIRED"
	StartFrameRepeated    Reason = "START_FRAME_REPEATED"
	EndFrameRequired      Reason = "END_FRAME_REQUIRED"
	FrameRequired         Reason = "FRAME_REQUIRED"
	JSONTooDeep           Reason = "JSON_TOO_DEEP"
	InvalidUTF8           Reason = "INVALID_UTF8"
	MessageTooDeep        Reason = "MESSAGE_TOO_DEEP"
	MalformedRequest      Reason = "MALFORMED_REQUEST"
	InvalidToolDefinition Reason = "INVALID_TOOL_DEFINITION"
	SchemaRefNotAllowed   Reason = "SCHEMA_REF_NOT_ALLOWED"
	WrongRPC              Reason = "WRONG_RPC"
	InvalidColumn         Reason = "INVALID_COLUMN"
	PathsRequired         Reason = "PATHS_REQUIRED"
	TooManyPaths          Reason = "TOO_MANY_PATHS"
	TooManyPatterns       Reason = "TOO_MANY_PATTERNS"
	FieldTooLong          Reason = "FIELD_TOO_LONG"

	// Access.
	TokenRequired       Reason = "TOKEN_REQUIRED"
	TokenInvalid        Reason = "TOKEN_INVALID"
	WorkspaceNotGranted Reason = "WORKSPACE_NOT_GRANTED"

	WorkspaceNotFound Reason = "WORKSPACE_NOT_FOUND"

	FileChanged Reason = "FILE_CHANGED"

	// Idempotency keys (guard.Once).
	IdempotencyKeyReused   Reason = "IDEMPOTENCY_KEY_REUSED"
	IdempotencyKeyInFlight Reason = "IDEMPOTENCY_KEY_IN_FLIGHT"
	IdempotencyReplyLost   Reason = "IDEMPOTENCY_REPLY_NOT_KEPT"
	FileLocked             Reason = "FILE_LOCKED"

	// Limits.
	TooManyStreams             Reason = "TOO_MANY_STREAMS"
	TooManyStreamsForPrincipal Reason = "TOO_MANY_STREAMS_FOR_PRINCIPAL"
	RateLimited                Reason = "RATE_LIMITED"
	ServerMemoryBusy           Reason = "SERVER_MEMORY_BUSY"
	ServerReceivingBusy        Reason = "SERVER_RECEIVING_BUSY"

	WorkspaceFull     Reason = "WORKSPACE_FULL"
	WorkspaceReadOnly Reason = "WORKSPACE_READ_ONLY"
	LockDirMismatch   Reason = "LOCK_DIR_MISMATCH"

	SessionStoreUnavailable Reason = "SESSION_STORE_UNAVAILABLE"
	StreamIdleTimeout       Reason = "STREAM_IDLE_TIMEOUT"
	ShuttingDown            Reason = "SHUTTING_DOWN"
)

// Info is one reason's row: its kind, whether sending the same call again
// may succeed, and what it means.
type Info struct {
	Reason      Reason
	Kind        Kind
	Retryable   bool
	Description string
}

// table is the one list of reasons.
var table = []Info{
	{SessionIDRequired, Invalid, false, "the request has no session id"},
	{SessionIDTooLong, Invalid, false, "the session id is longer than the server takes"},
	{SessionIDInvalid, Invalid, false, "the session id is not valid UTF-8"},
	{ModelIDTooLong, Invalid, false, "the model id is longer than the server takes"},
	{WorkspaceNameTooLong, Invalid, false, "the workspace name is longer than the server takes"},
	{InvalidSHA256, Invalid, false, "expected_sha256 is not 64 hexadecimal digits"},
	{CallRequired, Invalid, false, "the request has no tool call"},
	{ToolNameRequired, Invalid, false, "a call or a tool definition has no name"},
	{ToolNameTooLong, Invalid, false, "a tool name is longer than the server takes"},
	{ToolSchemaRequired, Invalid, false, "a tool definition has no parameters schema"},
	{TooManyTools, Invalid, false, "more tool definitions or names than the server takes"},
	{UnknownToolName, Invalid, false, "a stream's start frame names a tool the server does not know"},
	{StreamFormatRequired, Invalid, false, "a stream's start frame names no format"},
	{ToolCallsNotInFormat, Invalid, false, "a delta carries structured tool calls in a text format"},
	{StartFrameRequired, Invalid, false, "a stream did not begin with its start frame"},
	{StartFrameRepeated, Invalid, false, "a stream sent a second start frame"},
	{EndFrameRequired, Invalid, false, "a stream closed before its end frame"},
	{FrameRequired, Invalid, false, "a frame sets none of start, delta and end"},
	{JSONTooDeep, Invalid, false, "arguments or a schema nested deeper than the server takes"},
	{InvalidUTF8, Invalid, false, "a string field is not valid UTF-8"},
	{MessageTooDeep, Invalid, false, "messages nested past protobuf's recursion limit"},
	{MalformedRequest, Invalid, false, "bytes that are no protobuf message"},
	{InvalidToolDefinition, Invalid, false, "a tool definition's schema does not compile"},
	{SchemaRefNotAllowed, Invalid, false, "a tool schema refers outside itself"},
	{WrongRPC, Invalid, false, "a call sent to the RPC of another action (an edit to ExecuteWrite)"},
	{InvalidColumn, Invalid, false, "a read's column is past its line's end or inside a character"},
	{PathsRequired, Invalid, false, "a request for several paths names none"},
	{TooManyPaths, Invalid, false, "a request names more paths than one call takes"},
	{TooManyPatterns, Invalid, false, "a listing, find or search gives more exclude patterns than one call takes"},
	{FieldTooLong, Invalid, false, "a field is longer than its bound (a search's pattern or glob)"},
	{TokenRequired, Unauthenticated, false, "no bearer token"},
	{TokenInvalid, Unauthenticated, false, "a bearer token the server does not hold"},
	{WorkspaceNotGranted, Denied, false, "a workspace the caller was not granted"},
	{WorkspaceNotFound, NotFound, false, "a workspace the server does not have"},
	{FileChanged, Conflict, false, "the file changed since it was read: read it again"},
	{IdempotencyKeyReused, Invalid, false, "the idempotency key was used with a different call: nothing was done"},
	{IdempotencyKeyInFlight, Locked, true, "the call with this idempotency key is still running: nothing was done, send it again for its answer"},
	{IdempotencyReplyLost, Conflict, false, "the call with this idempotency key was carried out, but its answer was too large to keep"},
	{FileLocked, Locked, true, "another call is changing the file: nothing was done, send the call again"},
	{TooManyStreams, OverLimit, true, "the server's open streams are at their maximum"},
	{TooManyStreamsForPrincipal, OverLimit, true, "the caller's open streams are at its share"},
	{RateLimited, OverLimit, true, "the caller is over its rate limit"},
	{ServerMemoryBusy, OverLimit, true, "the memory for large requests is taken by the calls being handled: nothing was done, send the call again shortly"},
	{ServerReceivingBusy, OverLimit, true, "the server is receiving as many requests as it may at once: nothing was read or done, send the call again shortly"},
	{WorkspaceFull, Storage, false, "the workspace's disk is full or over quota: nothing was written"},
	{WorkspaceReadOnly, Storage, false, "the workspace is mounted read-only: nothing was written"},
	{LockDirMismatch, Storage, false, "the workspace names another lock directory than this server's (replicas that would lose writes): nothing was written"},
	{SessionStoreUnavailable, StoreDegraded, true, "the shared session store cannot be reached"},
	{StreamIdleTimeout, Timeout, false, "a stream waited on its client longer than the idle timeout"},
	{ShuttingDown, Unavailable, true, "the server is shutting down"},
}

var byReason = func() map[Reason]Info {
	m := make(map[Reason]Info, len(table))
	for _, in := range table {
		m[in.Reason] = in
	}
	return m
}()

// Lookup returns a reason's row; ok is false for a reason not in the table.
func Lookup(r Reason) (in Info, ok bool) {
	in, ok = byReason[r]
	return in, ok
}

// Reasons returns every reason's row, in the table's order.
func Reasons() []Info { return append([]Info(nil), table...) }
