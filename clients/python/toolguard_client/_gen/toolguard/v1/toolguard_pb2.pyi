from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

ARGUMENTS_FORM_PARAMS: ArgumentsForm
ARGUMENTS_FORM_TEXT: ArgumentsForm
ARGUMENTS_FORM_UNSPECIFIED: ArgumentsForm
ARGUMENTS_FORM_XML: ArgumentsForm
DESCRIPTOR: _descriptor.FileDescriptor
EDIT_STATUS_ALREADY_APPLIED: EditStatus
EDIT_STATUS_AMBIGUOUS: EditStatus
EDIT_STATUS_APPLIED: EditStatus
EDIT_STATUS_NOT_FOUND: EditStatus
EDIT_STATUS_NO_OP: EditStatus
EDIT_STATUS_UNSPECIFIED: EditStatus
ENTRY_TYPE_DIRECTORY: EntryType
ENTRY_TYPE_FILE: EntryType
ENTRY_TYPE_OTHER: EntryType
ENTRY_TYPE_SYMLINK: EntryType
ENTRY_TYPE_UNSPECIFIED: EntryType
FILE_CHANGE_KIND_CREATED: FileChangeKind
FILE_CHANGE_KIND_DELETED: FileChangeKind
FILE_CHANGE_KIND_DIRECTORY_CREATED: FileChangeKind
FILE_CHANGE_KIND_MODIFIED: FileChangeKind
FILE_CHANGE_KIND_MOVED: FileChangeKind
FILE_CHANGE_KIND_UNCHANGED: FileChangeKind
FILE_CHANGE_KIND_UNSPECIFIED: FileChangeKind
FILE_TYPE_DIRECTORY: FileType
FILE_TYPE_FILE: FileType
FILE_TYPE_OTHER: FileType
FILE_TYPE_SYMLINK: FileType
FILE_TYPE_UNSPECIFIED: FileType
MATCH_STRATEGY_BLOCK_ANCHOR: MatchStrategy
MATCH_STRATEGY_EXACT: MatchStrategy
MATCH_STRATEGY_FUZZY: MatchStrategy
MATCH_STRATEGY_INDENT: MatchStrategy
MATCH_STRATEGY_TRIM: MatchStrategy
MATCH_STRATEGY_TRIM_END: MatchStrategy
MATCH_STRATEGY_UNICODE: MatchStrategy
MATCH_STRATEGY_UNSPECIFIED: MatchStrategy
STREAM_FORMAT_ANTHROPIC: StreamFormat
STREAM_FORMAT_AUTO: StreamFormat
STREAM_FORMAT_CLAUDE_XML: StreamFormat
STREAM_FORMAT_DEEPSEEK_V3: StreamFormat
STREAM_FORMAT_DEEPSEEK_V31: StreamFormat
STREAM_FORMAT_GLM45: StreamFormat
STREAM_FORMAT_HARMONY: StreamFormat
STREAM_FORMAT_HERMES: StreamFormat
STREAM_FORMAT_KIMI_K2: StreamFormat
STREAM_FORMAT_LLAMA3_JSON: StreamFormat
STREAM_FORMAT_MINIMAX: StreamFormat
STREAM_FORMAT_MISTRAL: StreamFormat
STREAM_FORMAT_OPENAI: StreamFormat
STREAM_FORMAT_PYTHONIC: StreamFormat
STREAM_FORMAT_QWEN_XML: StreamFormat
STREAM_FORMAT_UNSPECIFIED: StreamFormat
STREAM_FORMAT_XML_TAGS: StreamFormat
SYNTAX_OUTCOME_ADDED: SyntaxOutcome
SYNTAX_OUTCOME_CLEAN: SyntaxOutcome
SYNTAX_OUTCOME_NOT_CHECKED: SyntaxOutcome
SYNTAX_OUTCOME_NOW_PARSES: SyntaxOutcome
SYNTAX_OUTCOME_STILL_BROKEN: SyntaxOutcome
SYNTAX_OUTCOME_UNSPECIFIED: SyntaxOutcome

class CallCompleteEvent(_message.Message):
    __slots__ = ["execution", "index", "truncated", "verdict"]
    EXECUTION_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    execution: Execution
    index: int
    truncated: bool
    verdict: Verdict
    def __init__(self, index: _Optional[int] = ..., verdict: _Optional[_Union[Verdict, _Mapping]] = ..., truncated: bool = ..., execution: _Optional[_Union[Execution, _Mapping]] = ...) -> None: ...

class CallStartedEvent(_message.Message):
    __slots__ = ["id", "index", "known", "raw_name", "tool_name"]
    ID_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    KNOWN_FIELD_NUMBER: _ClassVar[int]
    RAW_NAME_FIELD_NUMBER: _ClassVar[int]
    TOOL_NAME_FIELD_NUMBER: _ClassVar[int]
    id: str
    index: int
    known: bool
    raw_name: str
    tool_name: str
    def __init__(self, index: _Optional[int] = ..., id: _Optional[str] = ..., tool_name: _Optional[str] = ..., raw_name: _Optional[str] = ..., known: bool = ...) -> None: ...

class DirectoryEntry(_message.Message):
    __slots__ = ["depth", "link_target", "name", "omitted", "path", "size", "type"]
    DEPTH_FIELD_NUMBER: _ClassVar[int]
    LINK_TARGET_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    OMITTED_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    depth: int
    link_target: str
    name: str
    omitted: int
    path: str
    size: int
    type: EntryType
    def __init__(self, path: _Optional[str] = ..., name: _Optional[str] = ..., type: _Optional[_Union[EntryType, str]] = ..., size: _Optional[int] = ..., link_target: _Optional[str] = ..., depth: _Optional[int] = ..., omitted: _Optional[int] = ...) -> None: ...

class EditResult(_message.Message):
    __slots__ = ["column", "hint", "index", "line", "match_lines", "path", "similarity", "status", "strategy", "syntax_errors"]
    COLUMN_FIELD_NUMBER: _ClassVar[int]
    HINT_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    LINE_FIELD_NUMBER: _ClassVar[int]
    MATCH_LINES_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    SIMILARITY_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    STRATEGY_FIELD_NUMBER: _ClassVar[int]
    SYNTAX_ERRORS_FIELD_NUMBER: _ClassVar[int]
    column: int
    hint: str
    index: int
    line: int
    match_lines: _containers.RepeatedScalarFieldContainer[int]
    path: str
    similarity: float
    status: EditStatus
    strategy: MatchStrategy
    syntax_errors: _containers.RepeatedCompositeFieldContainer[SyntaxFinding]
    def __init__(self, index: _Optional[int] = ..., path: _Optional[str] = ..., status: _Optional[_Union[EditStatus, str]] = ..., strategy: _Optional[_Union[MatchStrategy, str]] = ..., similarity: _Optional[float] = ..., line: _Optional[int] = ..., column: _Optional[int] = ..., hint: _Optional[str] = ..., match_lines: _Optional[_Iterable[int]] = ..., syntax_errors: _Optional[_Iterable[_Union[SyntaxFinding, _Mapping]]] = ...) -> None: ...

class Elision(_message.Message):
    __slots__ = ["field", "sha256", "size"]
    FIELD_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    field: str
    sha256: str
    size: int
    def __init__(self, field: _Optional[str] = ..., size: _Optional[int] = ..., sha256: _Optional[str] = ...) -> None: ...

class ExecuteEditRequest(_message.Message):
    __slots__ = ["call", "context", "dry_run", "expected_sha256", "idempotency_key", "partial", "tools"]
    CALL_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    DRY_RUN_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_SHA256_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    PARTIAL_FIELD_NUMBER: _ClassVar[int]
    TOOLS_FIELD_NUMBER: _ClassVar[int]
    call: ToolCall
    context: RequestContext
    dry_run: bool
    expected_sha256: str
    idempotency_key: str
    partial: bool
    tools: _containers.RepeatedCompositeFieldContainer[ToolDefinition]
    def __init__(self, context: _Optional[_Union[RequestContext, _Mapping]] = ..., call: _Optional[_Union[ToolCall, _Mapping]] = ..., tools: _Optional[_Iterable[_Union[ToolDefinition, _Mapping]]] = ..., expected_sha256: _Optional[str] = ..., dry_run: bool = ..., partial: bool = ..., idempotency_key: _Optional[str] = ...) -> None: ...

class ExecuteEditResponse(_message.Message):
    __slots__ = ["applied", "changes", "diff", "diff_elided", "edits", "syntax_checks", "verdict"]
    APPLIED_FIELD_NUMBER: _ClassVar[int]
    CHANGES_FIELD_NUMBER: _ClassVar[int]
    DIFF_ELIDED_FIELD_NUMBER: _ClassVar[int]
    DIFF_FIELD_NUMBER: _ClassVar[int]
    EDITS_FIELD_NUMBER: _ClassVar[int]
    SYNTAX_CHECKS_FIELD_NUMBER: _ClassVar[int]
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    applied: bool
    changes: _containers.RepeatedCompositeFieldContainer[FileChange]
    diff: str
    diff_elided: Elision
    edits: _containers.RepeatedCompositeFieldContainer[EditResult]
    syntax_checks: _containers.RepeatedCompositeFieldContainer[SyntaxCheck]
    verdict: Verdict
    def __init__(self, verdict: _Optional[_Union[Verdict, _Mapping]] = ..., edits: _Optional[_Iterable[_Union[EditResult, _Mapping]]] = ..., diff: _Optional[str] = ..., changes: _Optional[_Iterable[_Union[FileChange, _Mapping]]] = ..., applied: bool = ..., diff_elided: _Optional[_Union[Elision, _Mapping]] = ..., syntax_checks: _Optional[_Iterable[_Union[SyntaxCheck, _Mapping]]] = ...) -> None: ...

class ExecuteWriteRequest(_message.Message):
    __slots__ = ["call", "context", "dry_run", "expected_sha256", "idempotency_key", "tools"]
    CALL_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    DRY_RUN_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_SHA256_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    TOOLS_FIELD_NUMBER: _ClassVar[int]
    call: ToolCall
    context: RequestContext
    dry_run: bool
    expected_sha256: str
    idempotency_key: str
    tools: _containers.RepeatedCompositeFieldContainer[ToolDefinition]
    def __init__(self, context: _Optional[_Union[RequestContext, _Mapping]] = ..., call: _Optional[_Union[ToolCall, _Mapping]] = ..., tools: _Optional[_Iterable[_Union[ToolDefinition, _Mapping]]] = ..., expected_sha256: _Optional[str] = ..., dry_run: bool = ..., idempotency_key: _Optional[str] = ...) -> None: ...

class ExecuteWriteResponse(_message.Message):
    __slots__ = ["change", "diff", "diff_elided", "syntax_checks", "verdict"]
    CHANGE_FIELD_NUMBER: _ClassVar[int]
    DIFF_ELIDED_FIELD_NUMBER: _ClassVar[int]
    DIFF_FIELD_NUMBER: _ClassVar[int]
    SYNTAX_CHECKS_FIELD_NUMBER: _ClassVar[int]
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    change: FileChange
    diff: str
    diff_elided: Elision
    syntax_checks: _containers.RepeatedCompositeFieldContainer[SyntaxCheck]
    verdict: Verdict
    def __init__(self, verdict: _Optional[_Union[Verdict, _Mapping]] = ..., change: _Optional[_Union[FileChange, _Mapping]] = ..., diff: _Optional[str] = ..., diff_elided: _Optional[_Union[Elision, _Mapping]] = ..., syntax_checks: _Optional[_Iterable[_Union[SyntaxCheck, _Mapping]]] = ...) -> None: ...

class Execution(_message.Message):
    __slots__ = ["applied", "changes", "diff", "diff_elided", "edits", "syntax_checks"]
    APPLIED_FIELD_NUMBER: _ClassVar[int]
    CHANGES_FIELD_NUMBER: _ClassVar[int]
    DIFF_ELIDED_FIELD_NUMBER: _ClassVar[int]
    DIFF_FIELD_NUMBER: _ClassVar[int]
    EDITS_FIELD_NUMBER: _ClassVar[int]
    SYNTAX_CHECKS_FIELD_NUMBER: _ClassVar[int]
    applied: bool
    changes: _containers.RepeatedCompositeFieldContainer[FileChange]
    diff: str
    diff_elided: Elision
    edits: _containers.RepeatedCompositeFieldContainer[EditResult]
    syntax_checks: _containers.RepeatedCompositeFieldContainer[SyntaxCheck]
    def __init__(self, edits: _Optional[_Iterable[_Union[EditResult, _Mapping]]] = ..., changes: _Optional[_Iterable[_Union[FileChange, _Mapping]]] = ..., diff: _Optional[str] = ..., applied: bool = ..., diff_elided: _Optional[_Union[Elision, _Mapping]] = ..., syntax_checks: _Optional[_Iterable[_Union[SyntaxCheck, _Mapping]]] = ...) -> None: ...

class FileChange(_message.Message):
    __slots__ = ["directory", "entries", "kind", "moved_to", "path", "previous_sha256", "sha256", "size"]
    DIRECTORY_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    MOVED_TO_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_SHA256_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    directory: bool
    entries: int
    kind: FileChangeKind
    moved_to: str
    path: str
    previous_sha256: str
    sha256: str
    size: int
    def __init__(self, path: _Optional[str] = ..., kind: _Optional[_Union[FileChangeKind, str]] = ..., previous_sha256: _Optional[str] = ..., sha256: _Optional[str] = ..., size: _Optional[int] = ..., moved_to: _Optional[str] = ..., directory: bool = ..., entries: _Optional[int] = ...) -> None: ...

class FileInfo(_message.Message):
    __slots__ = ["accessed", "created", "denied", "denied_by", "error", "link_target", "mode", "modified", "not_computed", "path", "resolved_path", "sha256", "size", "total_lines", "type"]
    ACCESSED_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    DENIED_BY_FIELD_NUMBER: _ClassVar[int]
    DENIED_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    LINK_TARGET_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    MODIFIED_FIELD_NUMBER: _ClassVar[int]
    NOT_COMPUTED_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    RESOLVED_PATH_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_LINES_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    accessed: _timestamp_pb2.Timestamp
    created: _timestamp_pb2.Timestamp
    denied: bool
    denied_by: str
    error: Violation
    link_target: str
    mode: int
    modified: _timestamp_pb2.Timestamp
    not_computed: str
    path: str
    resolved_path: str
    sha256: str
    size: int
    total_lines: int
    type: FileType
    def __init__(self, path: _Optional[str] = ..., resolved_path: _Optional[str] = ..., type: _Optional[_Union[FileType, str]] = ..., size: _Optional[int] = ..., mode: _Optional[int] = ..., modified: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., accessed: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., created: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., link_target: _Optional[str] = ..., total_lines: _Optional[int] = ..., sha256: _Optional[str] = ..., not_computed: _Optional[str] = ..., denied: bool = ..., denied_by: _Optional[str] = ..., error: _Optional[_Union[Violation, _Mapping]] = ...) -> None: ...

class FileText(_message.Message):
    __slots__ = ["content", "end_line", "error", "next_column", "next_offset", "path", "resolved_path", "sha256", "size", "start_line", "total_lines", "truncated"]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    END_LINE_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    NEXT_COLUMN_FIELD_NUMBER: _ClassVar[int]
    NEXT_OFFSET_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    RESOLVED_PATH_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    START_LINE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_LINES_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    content: str
    end_line: int
    error: Violation
    next_column: int
    next_offset: int
    path: str
    resolved_path: str
    sha256: str
    size: int
    start_line: int
    total_lines: int
    truncated: bool
    def __init__(self, path: _Optional[str] = ..., resolved_path: _Optional[str] = ..., content: _Optional[str] = ..., sha256: _Optional[str] = ..., size: _Optional[int] = ..., total_lines: _Optional[int] = ..., start_line: _Optional[int] = ..., end_line: _Optional[int] = ..., truncated: bool = ..., next_offset: _Optional[int] = ..., next_column: _Optional[int] = ..., error: _Optional[_Union[Violation, _Mapping]] = ...) -> None: ...

class FindFilesRequest(_message.Message):
    __slots__ = ["context", "exclude", "gitignore", "max_results", "path", "pattern"]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    EXCLUDE_FIELD_NUMBER: _ClassVar[int]
    GITIGNORE_FIELD_NUMBER: _ClassVar[int]
    MAX_RESULTS_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    PATTERN_FIELD_NUMBER: _ClassVar[int]
    context: RequestContext
    exclude: _containers.RepeatedScalarFieldContainer[str]
    gitignore: bool
    max_results: int
    path: str
    pattern: str
    def __init__(self, context: _Optional[_Union[RequestContext, _Mapping]] = ..., pattern: _Optional[str] = ..., path: _Optional[str] = ..., exclude: _Optional[_Iterable[str]] = ..., max_results: _Optional[int] = ..., gitignore: bool = ...) -> None: ...

class FindFilesResponse(_message.Message):
    __slots__ = ["matches", "omitted", "partial", "path", "text", "verdict"]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    OMITTED_FIELD_NUMBER: _ClassVar[int]
    PARTIAL_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    matches: _containers.RepeatedCompositeFieldContainer[DirectoryEntry]
    omitted: int
    partial: bool
    path: str
    text: str
    verdict: Verdict
    def __init__(self, verdict: _Optional[_Union[Verdict, _Mapping]] = ..., path: _Optional[str] = ..., matches: _Optional[_Iterable[_Union[DirectoryEntry, _Mapping]]] = ..., omitted: _Optional[int] = ..., partial: bool = ..., text: _Optional[str] = ...) -> None: ...

class GetFileInfoRequest(_message.Message):
    __slots__ = ["context", "paths"]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    PATHS_FIELD_NUMBER: _ClassVar[int]
    context: RequestContext
    paths: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, context: _Optional[_Union[RequestContext, _Mapping]] = ..., paths: _Optional[_Iterable[str]] = ...) -> None: ...

class GetFileInfoResponse(_message.Message):
    __slots__ = ["files", "verdict"]
    FILES_FIELD_NUMBER: _ClassVar[int]
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    files: _containers.RepeatedCompositeFieldContainer[FileInfo]
    verdict: Verdict
    def __init__(self, verdict: _Optional[_Union[Verdict, _Mapping]] = ..., files: _Optional[_Iterable[_Union[FileInfo, _Mapping]]] = ...) -> None: ...

class GetSessionRequest(_message.Message):
    __slots__ = ["session_id"]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    def __init__(self, session_id: _Optional[str] = ...) -> None: ...

class GetSessionResponse(_message.Message):
    __slots__ = ["session"]
    SESSION_FIELD_NUMBER: _ClassVar[int]
    session: Session
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ...) -> None: ...

class ListDirectoryRequest(_message.Message):
    __slots__ = ["context", "depth", "exclude", "gitignore", "max_entries", "path"]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    DEPTH_FIELD_NUMBER: _ClassVar[int]
    EXCLUDE_FIELD_NUMBER: _ClassVar[int]
    GITIGNORE_FIELD_NUMBER: _ClassVar[int]
    MAX_ENTRIES_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    context: RequestContext
    depth: int
    exclude: _containers.RepeatedScalarFieldContainer[str]
    gitignore: bool
    max_entries: int
    path: str
    def __init__(self, context: _Optional[_Union[RequestContext, _Mapping]] = ..., path: _Optional[str] = ..., depth: _Optional[int] = ..., max_entries: _Optional[int] = ..., exclude: _Optional[_Iterable[str]] = ..., gitignore: bool = ...) -> None: ...

class ListDirectoryResponse(_message.Message):
    __slots__ = ["directories", "entries", "files", "omitted", "others", "partial", "path", "symlinks", "text", "total_bytes", "verdict"]
    DIRECTORIES_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    FILES_FIELD_NUMBER: _ClassVar[int]
    OMITTED_FIELD_NUMBER: _ClassVar[int]
    OTHERS_FIELD_NUMBER: _ClassVar[int]
    PARTIAL_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    SYMLINKS_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    TOTAL_BYTES_FIELD_NUMBER: _ClassVar[int]
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    directories: int
    entries: _containers.RepeatedCompositeFieldContainer[DirectoryEntry]
    files: int
    omitted: int
    others: int
    partial: bool
    path: str
    symlinks: int
    text: str
    total_bytes: int
    verdict: Verdict
    def __init__(self, verdict: _Optional[_Union[Verdict, _Mapping]] = ..., path: _Optional[str] = ..., entries: _Optional[_Iterable[_Union[DirectoryEntry, _Mapping]]] = ..., files: _Optional[int] = ..., directories: _Optional[int] = ..., symlinks: _Optional[int] = ..., others: _Optional[int] = ..., total_bytes: _Optional[int] = ..., omitted: _Optional[int] = ..., partial: bool = ..., text: _Optional[str] = ...) -> None: ...

class ListToolsRequest(_message.Message):
    __slots__ = ["model_id"]
    MODEL_ID_FIELD_NUMBER: _ClassVar[int]
    model_id: str
    def __init__(self, model_id: _Optional[str] = ...) -> None: ...

class ListToolsResponse(_message.Message):
    __slots__ = ["model_family", "tools"]
    MODEL_FAMILY_FIELD_NUMBER: _ClassVar[int]
    TOOLS_FIELD_NUMBER: _ClassVar[int]
    model_family: str
    tools: _containers.RepeatedCompositeFieldContainer[ToolSpec]
    def __init__(self, tools: _Optional[_Iterable[_Union[ToolSpec, _Mapping]]] = ..., model_family: _Optional[str] = ...) -> None: ...

class MistakeState(_message.Message):
    __slots__ = ["consecutive", "limit", "limit_reached", "not_counted"]
    CONSECUTIVE_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    LIMIT_REACHED_FIELD_NUMBER: _ClassVar[int]
    NOT_COUNTED_FIELD_NUMBER: _ClassVar[int]
    consecutive: int
    limit: int
    limit_reached: bool
    not_counted: bool
    def __init__(self, consecutive: _Optional[int] = ..., limit: _Optional[int] = ..., limit_reached: bool = ..., not_counted: bool = ...) -> None: ...

class ParamAliases(_message.Message):
    __slots__ = ["aliases", "allow_empty", "param"]
    ALIASES_FIELD_NUMBER: _ClassVar[int]
    ALLOW_EMPTY_FIELD_NUMBER: _ClassVar[int]
    PARAM_FIELD_NUMBER: _ClassVar[int]
    aliases: _containers.RepeatedScalarFieldContainer[str]
    allow_empty: bool
    param: str
    def __init__(self, param: _Optional[str] = ..., aliases: _Optional[_Iterable[str]] = ..., allow_empty: bool = ...) -> None: ...

class ParamUpdateEvent(_message.Message):
    __slots__ = ["append", "index", "param", "value_json"]
    APPEND_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    PARAM_FIELD_NUMBER: _ClassVar[int]
    VALUE_JSON_FIELD_NUMBER: _ClassVar[int]
    append: str
    index: int
    param: str
    value_json: str
    def __init__(self, index: _Optional[int] = ..., param: _Optional[str] = ..., append: _Optional[str] = ..., value_json: _Optional[str] = ...) -> None: ...

class ReadFileRequest(_message.Message):
    __slots__ = ["column", "context", "head", "limit", "line_numbers", "offset", "path", "tail"]
    COLUMN_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    HEAD_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    LINE_NUMBERS_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    TAIL_FIELD_NUMBER: _ClassVar[int]
    column: int
    context: RequestContext
    head: int
    limit: int
    line_numbers: bool
    offset: int
    path: str
    tail: int
    def __init__(self, context: _Optional[_Union[RequestContext, _Mapping]] = ..., path: _Optional[str] = ..., offset: _Optional[int] = ..., limit: _Optional[int] = ..., line_numbers: bool = ..., column: _Optional[int] = ..., head: _Optional[int] = ..., tail: _Optional[int] = ...) -> None: ...

class ReadFileResponse(_message.Message):
    __slots__ = ["content", "end_line", "next_column", "next_offset", "path", "sha256", "size", "start_line", "total_lines", "truncated", "verdict"]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    END_LINE_FIELD_NUMBER: _ClassVar[int]
    NEXT_COLUMN_FIELD_NUMBER: _ClassVar[int]
    NEXT_OFFSET_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    START_LINE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_LINES_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    content: str
    end_line: int
    next_column: int
    next_offset: int
    path: str
    sha256: str
    size: int
    start_line: int
    total_lines: int
    truncated: bool
    verdict: Verdict
    def __init__(self, verdict: _Optional[_Union[Verdict, _Mapping]] = ..., path: _Optional[str] = ..., content: _Optional[str] = ..., sha256: _Optional[str] = ..., size: _Optional[int] = ..., total_lines: _Optional[int] = ..., start_line: _Optional[int] = ..., end_line: _Optional[int] = ..., truncated: bool = ..., next_offset: _Optional[int] = ..., next_column: _Optional[int] = ...) -> None: ...

class ReadFilesRequest(_message.Message):
    __slots__ = ["context", "head", "line_numbers", "paths", "tail"]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    HEAD_FIELD_NUMBER: _ClassVar[int]
    LINE_NUMBERS_FIELD_NUMBER: _ClassVar[int]
    PATHS_FIELD_NUMBER: _ClassVar[int]
    TAIL_FIELD_NUMBER: _ClassVar[int]
    context: RequestContext
    head: int
    line_numbers: bool
    paths: _containers.RepeatedScalarFieldContainer[str]
    tail: int
    def __init__(self, context: _Optional[_Union[RequestContext, _Mapping]] = ..., paths: _Optional[_Iterable[str]] = ..., head: _Optional[int] = ..., tail: _Optional[int] = ..., line_numbers: bool = ...) -> None: ...

class ReadFilesResponse(_message.Message):
    __slots__ = ["files", "verdict"]
    FILES_FIELD_NUMBER: _ClassVar[int]
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    files: _containers.RepeatedCompositeFieldContainer[FileText]
    verdict: Verdict
    def __init__(self, verdict: _Optional[_Union[Verdict, _Mapping]] = ..., files: _Optional[_Iterable[_Union[FileText, _Mapping]]] = ...) -> None: ...

class ReadMediaFileRequest(_message.Message):
    __slots__ = ["context", "path"]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    context: RequestContext
    path: str
    def __init__(self, context: _Optional[_Union[RequestContext, _Mapping]] = ..., path: _Optional[str] = ...) -> None: ...

class ReadMediaFileResponse(_message.Message):
    __slots__ = ["data", "mime_type", "path", "sha256", "verdict"]
    DATA_FIELD_NUMBER: _ClassVar[int]
    MIME_TYPE_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    data: bytes
    mime_type: str
    path: str
    sha256: str
    verdict: Verdict
    def __init__(self, verdict: _Optional[_Union[Verdict, _Mapping]] = ..., path: _Optional[str] = ..., mime_type: _Optional[str] = ..., data: _Optional[bytes] = ..., sha256: _Optional[str] = ...) -> None: ...

class Repair(_message.Message):
    __slots__ = ["code", "detail", "param"]
    CODE_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    PARAM_FIELD_NUMBER: _ClassVar[int]
    code: str
    detail: str
    param: str
    def __init__(self, code: _Optional[str] = ..., param: _Optional[str] = ..., detail: _Optional[str] = ...) -> None: ...

class RequestContext(_message.Message):
    __slots__ = ["mistake_limit", "model_id", "session_id", "workspace"]
    MISTAKE_LIMIT_FIELD_NUMBER: _ClassVar[int]
    MODEL_ID_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    WORKSPACE_FIELD_NUMBER: _ClassVar[int]
    mistake_limit: int
    model_id: str
    session_id: str
    workspace: str
    def __init__(self, session_id: _Optional[str] = ..., model_id: _Optional[str] = ..., workspace: _Optional[str] = ..., mistake_limit: _Optional[int] = ...) -> None: ...

class ResetSessionRequest(_message.Message):
    __slots__ = ["session_id"]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    def __init__(self, session_id: _Optional[str] = ...) -> None: ...

class ResetSessionResponse(_message.Message):
    __slots__ = ["session"]
    SESSION_FIELD_NUMBER: _ClassVar[int]
    session: Session
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ...) -> None: ...

class SearchFileCount(_message.Message):
    __slots__ = ["count", "path"]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    count: int
    path: str
    def __init__(self, path: _Optional[str] = ..., count: _Optional[int] = ...) -> None: ...

class SearchFilesRequest(_message.Message):
    __slots__ = ["after", "before", "context", "context_lines", "exclude", "gitignore", "ignore_case", "include", "literal", "max_results", "output_mode", "path", "pattern", "smart_case"]
    AFTER_FIELD_NUMBER: _ClassVar[int]
    BEFORE_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_LINES_FIELD_NUMBER: _ClassVar[int]
    EXCLUDE_FIELD_NUMBER: _ClassVar[int]
    GITIGNORE_FIELD_NUMBER: _ClassVar[int]
    IGNORE_CASE_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_FIELD_NUMBER: _ClassVar[int]
    LITERAL_FIELD_NUMBER: _ClassVar[int]
    MAX_RESULTS_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_MODE_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    PATTERN_FIELD_NUMBER: _ClassVar[int]
    SMART_CASE_FIELD_NUMBER: _ClassVar[int]
    after: int
    before: int
    context: RequestContext
    context_lines: int
    exclude: _containers.RepeatedScalarFieldContainer[str]
    gitignore: bool
    ignore_case: bool
    include: str
    literal: bool
    max_results: int
    output_mode: str
    path: str
    pattern: str
    smart_case: bool
    def __init__(self, context: _Optional[_Union[RequestContext, _Mapping]] = ..., pattern: _Optional[str] = ..., path: _Optional[str] = ..., include: _Optional[str] = ..., exclude: _Optional[_Iterable[str]] = ..., literal: bool = ..., ignore_case: bool = ..., smart_case: bool = ..., context_lines: _Optional[int] = ..., before: _Optional[int] = ..., after: _Optional[int] = ..., max_results: _Optional[int] = ..., output_mode: _Optional[str] = ..., gitignore: bool = ...) -> None: ...

class SearchFilesResponse(_message.Message):
    __slots__ = ["binary_skipped", "bytes_read", "cut", "files", "files_matched", "files_searched", "large_skipped", "matches", "omitted", "partial", "path", "text", "total_matches", "unreadable_skipped", "verdict"]
    BINARY_SKIPPED_FIELD_NUMBER: _ClassVar[int]
    BYTES_READ_FIELD_NUMBER: _ClassVar[int]
    CUT_FIELD_NUMBER: _ClassVar[int]
    FILES_FIELD_NUMBER: _ClassVar[int]
    FILES_MATCHED_FIELD_NUMBER: _ClassVar[int]
    FILES_SEARCHED_FIELD_NUMBER: _ClassVar[int]
    LARGE_SKIPPED_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    OMITTED_FIELD_NUMBER: _ClassVar[int]
    PARTIAL_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    TOTAL_MATCHES_FIELD_NUMBER: _ClassVar[int]
    UNREADABLE_SKIPPED_FIELD_NUMBER: _ClassVar[int]
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    binary_skipped: int
    bytes_read: int
    cut: str
    files: _containers.RepeatedCompositeFieldContainer[SearchFileCount]
    files_matched: int
    files_searched: int
    large_skipped: int
    matches: _containers.RepeatedCompositeFieldContainer[SearchMatch]
    omitted: int
    partial: bool
    path: str
    text: str
    total_matches: int
    unreadable_skipped: int
    verdict: Verdict
    def __init__(self, verdict: _Optional[_Union[Verdict, _Mapping]] = ..., path: _Optional[str] = ..., matches: _Optional[_Iterable[_Union[SearchMatch, _Mapping]]] = ..., files: _Optional[_Iterable[_Union[SearchFileCount, _Mapping]]] = ..., total_matches: _Optional[int] = ..., files_matched: _Optional[int] = ..., omitted: _Optional[int] = ..., files_searched: _Optional[int] = ..., binary_skipped: _Optional[int] = ..., large_skipped: _Optional[int] = ..., unreadable_skipped: _Optional[int] = ..., bytes_read: _Optional[int] = ..., partial: bool = ..., cut: _Optional[str] = ..., text: _Optional[str] = ...) -> None: ...

class SearchMatch(_message.Message):
    __slots__ = ["after", "before", "column", "line", "path", "text"]
    AFTER_FIELD_NUMBER: _ClassVar[int]
    BEFORE_FIELD_NUMBER: _ClassVar[int]
    COLUMN_FIELD_NUMBER: _ClassVar[int]
    LINE_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    after: _containers.RepeatedScalarFieldContainer[str]
    before: _containers.RepeatedScalarFieldContainer[str]
    column: int
    line: int
    path: str
    text: str
    def __init__(self, path: _Optional[str] = ..., line: _Optional[int] = ..., column: _Optional[int] = ..., text: _Optional[str] = ..., before: _Optional[_Iterable[str]] = ..., after: _Optional[_Iterable[str]] = ...) -> None: ...

class Session(_message.Message):
    __slots__ = ["exists", "last_seen", "mistakes", "session_id"]
    EXISTS_FIELD_NUMBER: _ClassVar[int]
    LAST_SEEN_FIELD_NUMBER: _ClassVar[int]
    MISTAKES_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    exists: bool
    last_seen: _timestamp_pb2.Timestamp
    mistakes: MistakeState
    session_id: str
    def __init__(self, session_id: _Optional[str] = ..., mistakes: _Optional[_Union[MistakeState, _Mapping]] = ..., exists: bool = ..., last_seen: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class StreamDelta(_message.Message):
    __slots__ = ["text", "tool_calls"]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALLS_FIELD_NUMBER: _ClassVar[int]
    text: str
    tool_calls: _containers.RepeatedCompositeFieldContainer[ToolCallDelta]
    def __init__(self, text: _Optional[str] = ..., tool_calls: _Optional[_Iterable[_Union[ToolCallDelta, _Mapping]]] = ...) -> None: ...

class StreamDoneEvent(_message.Message):
    __slots__ = ["calls", "finish_reason", "mistakes"]
    CALLS_FIELD_NUMBER: _ClassVar[int]
    FINISH_REASON_FIELD_NUMBER: _ClassVar[int]
    MISTAKES_FIELD_NUMBER: _ClassVar[int]
    calls: int
    finish_reason: str
    mistakes: MistakeState
    def __init__(self, finish_reason: _Optional[str] = ..., calls: _Optional[int] = ..., mistakes: _Optional[_Union[MistakeState, _Mapping]] = ...) -> None: ...

class StreamEnd(_message.Message):
    __slots__ = ["finish_reason"]
    FINISH_REASON_FIELD_NUMBER: _ClassVar[int]
    finish_reason: str
    def __init__(self, finish_reason: _Optional[str] = ...) -> None: ...

class StreamErrorEvent(_message.Message):
    __slots__ = ["code", "index", "message"]
    CODE_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    code: str
    index: int
    message: str
    def __init__(self, code: _Optional[str] = ..., message: _Optional[str] = ..., index: _Optional[int] = ...) -> None: ...

class StreamOptions(_message.Message):
    __slots__ = ["dry_run", "execute_on_complete", "idempotency_key", "max_call_bytes", "max_param_bytes", "partial"]
    DRY_RUN_FIELD_NUMBER: _ClassVar[int]
    EXECUTE_ON_COMPLETE_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    MAX_CALL_BYTES_FIELD_NUMBER: _ClassVar[int]
    MAX_PARAM_BYTES_FIELD_NUMBER: _ClassVar[int]
    PARTIAL_FIELD_NUMBER: _ClassVar[int]
    dry_run: bool
    execute_on_complete: bool
    idempotency_key: str
    max_call_bytes: int
    max_param_bytes: int
    partial: bool
    def __init__(self, execute_on_complete: bool = ..., dry_run: bool = ..., partial: bool = ..., max_call_bytes: _Optional[int] = ..., max_param_bytes: _Optional[int] = ..., idempotency_key: _Optional[str] = ...) -> None: ...

class StreamStart(_message.Message):
    __slots__ = ["context", "format", "options", "tool_names", "tools"]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    TOOLS_FIELD_NUMBER: _ClassVar[int]
    TOOL_NAMES_FIELD_NUMBER: _ClassVar[int]
    context: RequestContext
    format: StreamFormat
    options: StreamOptions
    tool_names: _containers.RepeatedScalarFieldContainer[str]
    tools: _containers.RepeatedCompositeFieldContainer[ToolDefinition]
    def __init__(self, context: _Optional[_Union[RequestContext, _Mapping]] = ..., format: _Optional[_Union[StreamFormat, str]] = ..., tools: _Optional[_Iterable[_Union[ToolDefinition, _Mapping]]] = ..., tool_names: _Optional[_Iterable[str]] = ..., options: _Optional[_Union[StreamOptions, _Mapping]] = ...) -> None: ...

class StreamToolCallsRequest(_message.Message):
    __slots__ = ["delta", "end", "start"]
    DELTA_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    START_FIELD_NUMBER: _ClassVar[int]
    delta: StreamDelta
    end: StreamEnd
    start: StreamStart
    def __init__(self, start: _Optional[_Union[StreamStart, _Mapping]] = ..., delta: _Optional[_Union[StreamDelta, _Mapping]] = ..., end: _Optional[_Union[StreamEnd, _Mapping]] = ...) -> None: ...

class StreamToolCallsResponse(_message.Message):
    __slots__ = ["call_complete", "call_started", "done", "error", "param_update", "text"]
    CALL_COMPLETE_FIELD_NUMBER: _ClassVar[int]
    CALL_STARTED_FIELD_NUMBER: _ClassVar[int]
    DONE_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    PARAM_UPDATE_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    call_complete: CallCompleteEvent
    call_started: CallStartedEvent
    done: StreamDoneEvent
    error: StreamErrorEvent
    param_update: ParamUpdateEvent
    text: TextEvent
    def __init__(self, text: _Optional[_Union[TextEvent, _Mapping]] = ..., call_started: _Optional[_Union[CallStartedEvent, _Mapping]] = ..., param_update: _Optional[_Union[ParamUpdateEvent, _Mapping]] = ..., call_complete: _Optional[_Union[CallCompleteEvent, _Mapping]] = ..., error: _Optional[_Union[StreamErrorEvent, _Mapping]] = ..., done: _Optional[_Union[StreamDoneEvent, _Mapping]] = ...) -> None: ...

class StringParams(_message.Message):
    __slots__ = ["values"]
    class ValuesEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    VALUES_FIELD_NUMBER: _ClassVar[int]
    values: _containers.ScalarMap[str, str]
    def __init__(self, values: _Optional[_Mapping[str, str]] = ...) -> None: ...

class SyntaxCheck(_message.Message):
    __slots__ = ["added", "errors", "language", "outcome", "path", "reason"]
    ADDED_FIELD_NUMBER: _ClassVar[int]
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    added: int
    errors: _containers.RepeatedCompositeFieldContainer[SyntaxFinding]
    language: str
    outcome: SyntaxOutcome
    path: str
    reason: str
    def __init__(self, path: _Optional[str] = ..., language: _Optional[str] = ..., outcome: _Optional[_Union[SyntaxOutcome, str]] = ..., reason: _Optional[str] = ..., errors: _Optional[_Iterable[_Union[SyntaxFinding, _Mapping]]] = ..., added: _Optional[int] = ...) -> None: ...

class SyntaxFinding(_message.Message):
    __slots__ = ["column", "line", "lines", "message", "path"]
    COLUMN_FIELD_NUMBER: _ClassVar[int]
    LINES_FIELD_NUMBER: _ClassVar[int]
    LINE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    column: int
    line: int
    lines: str
    message: str
    path: str
    def __init__(self, path: _Optional[str] = ..., line: _Optional[int] = ..., column: _Optional[int] = ..., message: _Optional[str] = ..., lines: _Optional[str] = ...) -> None: ...

class TextEvent(_message.Message):
    __slots__ = ["text"]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    text: str
    def __init__(self, text: _Optional[str] = ...) -> None: ...

class ToolCall(_message.Message):
    __slots__ = ["arguments_text", "id", "name", "params", "xml_block"]
    ARGUMENTS_TEXT_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PARAMS_FIELD_NUMBER: _ClassVar[int]
    XML_BLOCK_FIELD_NUMBER: _ClassVar[int]
    arguments_text: str
    id: str
    name: str
    params: StringParams
    xml_block: str
    def __init__(self, name: _Optional[str] = ..., arguments_text: _Optional[str] = ..., params: _Optional[_Union[StringParams, _Mapping]] = ..., xml_block: _Optional[str] = ..., id: _Optional[str] = ...) -> None: ...

class ToolCallDelta(_message.Message):
    __slots__ = ["arguments", "done", "id", "index", "name"]
    ARGUMENTS_FIELD_NUMBER: _ClassVar[int]
    DONE_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    arguments: str
    done: bool
    id: str
    index: int
    name: str
    def __init__(self, index: _Optional[int] = ..., id: _Optional[str] = ..., name: _Optional[str] = ..., arguments: _Optional[str] = ..., done: bool = ...) -> None: ...

class ToolDefinition(_message.Message):
    __slots__ = ["aliases", "content_params", "description", "name", "param_aliases", "parameters"]
    ALIASES_FIELD_NUMBER: _ClassVar[int]
    CONTENT_PARAMS_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    PARAM_ALIASES_FIELD_NUMBER: _ClassVar[int]
    aliases: _containers.RepeatedScalarFieldContainer[str]
    content_params: _containers.RepeatedScalarFieldContainer[str]
    description: str
    name: str
    param_aliases: _containers.RepeatedCompositeFieldContainer[ParamAliases]
    parameters: _struct_pb2.Struct
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., parameters: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., aliases: _Optional[_Iterable[str]] = ..., param_aliases: _Optional[_Iterable[_Union[ParamAliases, _Mapping]]] = ..., content_params: _Optional[_Iterable[str]] = ...) -> None: ...

class ToolSpec(_message.Message):
    __slots__ = ["anthropic_tool", "builtin", "definition", "openai_tool", "xml_usage"]
    ANTHROPIC_TOOL_FIELD_NUMBER: _ClassVar[int]
    BUILTIN_FIELD_NUMBER: _ClassVar[int]
    DEFINITION_FIELD_NUMBER: _ClassVar[int]
    OPENAI_TOOL_FIELD_NUMBER: _ClassVar[int]
    XML_USAGE_FIELD_NUMBER: _ClassVar[int]
    anthropic_tool: _struct_pb2.Struct
    builtin: bool
    definition: ToolDefinition
    openai_tool: _struct_pb2.Struct
    xml_usage: str
    def __init__(self, definition: _Optional[_Union[ToolDefinition, _Mapping]] = ..., openai_tool: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., anthropic_tool: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., xml_usage: _Optional[str] = ..., builtin: bool = ...) -> None: ...

class ValidateToolCallRequest(_message.Message):
    __slots__ = ["call", "context", "tools"]
    CALL_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    TOOLS_FIELD_NUMBER: _ClassVar[int]
    call: ToolCall
    context: RequestContext
    tools: _containers.RepeatedCompositeFieldContainer[ToolDefinition]
    def __init__(self, context: _Optional[_Union[RequestContext, _Mapping]] = ..., call: _Optional[_Union[ToolCall, _Mapping]] = ..., tools: _Optional[_Iterable[_Union[ToolDefinition, _Mapping]]] = ...) -> None: ...

class ValidateToolCallResponse(_message.Message):
    __slots__ = ["verdict"]
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    verdict: Verdict
    def __init__(self, verdict: _Optional[_Union[Verdict, _Mapping]] = ...) -> None: ...

class Verdict(_message.Message):
    __slots__ = ["arguments", "arguments_json", "call_id", "elided", "feedback", "form", "mistakes", "ok", "repairs", "tool_name", "violations", "violations_omitted"]
    ARGUMENTS_FIELD_NUMBER: _ClassVar[int]
    ARGUMENTS_JSON_FIELD_NUMBER: _ClassVar[int]
    CALL_ID_FIELD_NUMBER: _ClassVar[int]
    ELIDED_FIELD_NUMBER: _ClassVar[int]
    FEEDBACK_FIELD_NUMBER: _ClassVar[int]
    FORM_FIELD_NUMBER: _ClassVar[int]
    MISTAKES_FIELD_NUMBER: _ClassVar[int]
    OK_FIELD_NUMBER: _ClassVar[int]
    REPAIRS_FIELD_NUMBER: _ClassVar[int]
    TOOL_NAME_FIELD_NUMBER: _ClassVar[int]
    VIOLATIONS_FIELD_NUMBER: _ClassVar[int]
    VIOLATIONS_OMITTED_FIELD_NUMBER: _ClassVar[int]
    arguments: _struct_pb2.Struct
    arguments_json: str
    call_id: str
    elided: _containers.RepeatedCompositeFieldContainer[Elision]
    feedback: str
    form: ArgumentsForm
    mistakes: MistakeState
    ok: bool
    repairs: _containers.RepeatedCompositeFieldContainer[Repair]
    tool_name: str
    violations: _containers.RepeatedCompositeFieldContainer[Violation]
    violations_omitted: int
    def __init__(self, ok: bool = ..., tool_name: _Optional[str] = ..., arguments: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., arguments_json: _Optional[str] = ..., repairs: _Optional[_Iterable[_Union[Repair, _Mapping]]] = ..., violations: _Optional[_Iterable[_Union[Violation, _Mapping]]] = ..., feedback: _Optional[str] = ..., mistakes: _Optional[_Union[MistakeState, _Mapping]] = ..., call_id: _Optional[str] = ..., form: _Optional[_Union[ArgumentsForm, str]] = ..., violations_omitted: _Optional[int] = ..., elided: _Optional[_Iterable[_Union[Elision, _Mapping]]] = ...) -> None: ...

class Violation(_message.Message):
    __slots__ = ["code", "message", "param"]
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    PARAM_FIELD_NUMBER: _ClassVar[int]
    code: str
    message: str
    param: str
    def __init__(self, code: _Optional[str] = ..., param: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class ArgumentsForm(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class EditStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class MatchStrategy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class FileChangeKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class StreamFormat(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class EntryType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class FileType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class SyntaxOutcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
