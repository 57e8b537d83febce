"""ToolGuardClient: a thin, typed helper over the generated toolguard stubs."""

from __future__ import annotations

import json
import threading
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence, TypeVar, Union, cast

import grpc
from google.protobuf import struct_pb2

from ._proto import toolguard_pb2 as pb
from ._proto import toolguard_pb2_grpc as pb_grpc
from ._version import __version__
from .errors import ToolGuardError

__all__ = [
    "AUTHORIZATION_KEY",
    "BALANCED_SCHEMES",
    "DEFAULT_CHANNEL_OPTIONS",
    "Delta",
    "MetadataLike",
    "ToolGuardClient",
    "ToolLike",
    "arguments_dict",
    "stream_delta",
    "stream_format",
    "tool_call_delta",
    "tool_definition",
]

#: A tool for the ``tools`` argument: a ToolDefinition, or a dict with the keys
#: ``name``, ``description``, ``parameters`` (a JSON Schema dict; also
#: ``input_schema``), ``aliases``, ``param_aliases`` and ``content_params``.
#: An OpenAI tool ``{"type": "function", "function": {...}}`` is unwrapped.
ToolLike = Union["pb.ToolDefinition", Mapping[str, Any]]

#: One piece of a streamed model response: text (a ``str``), one tool-call
#: fragment (a dict with ``index``, ``id``, ``name``, ``arguments``, ``done``,
#: or an OpenAI ``delta.tool_calls[]`` item with its nested ``function``), a
#: dict with ``text`` and/or ``tool_calls`` (a list of fragments), or a
#: ``StreamDelta`` / ``ToolCallDelta`` message.
Delta = Union[str, Mapping[str, Any], "pb.StreamDelta", "pb.ToolCallDelta"]

#: gRPC metadata: a mapping or a sequence of (key, value) pairs.
MetadataLike = Union[Mapping[str, str], Sequence[tuple[str, str]]]

_T = TypeVar("_T")

#: Channel options the client starts from: message sizes matching the server's
#: defaults (``--max-send-msg-bytes`` 32 MiB, ``--max-recv-msg-bytes`` 16 MiB),
#: since gRPC Python's own receive limit (4 MiB) is below what the server may
#: send (a large file's diff). ``options`` given to the client win.
DEFAULT_CHANNEL_OPTIONS: tuple[tuple[str, Any], ...] = (
    ("grpc.max_receive_message_length", 32 * 1024 * 1024),
    ("grpc.max_send_message_length", 16 * 1024 * 1024),
)

#: Target schemes that name a list of servers: the client balances calls over
#: them by default (``balance=None``). A plain ``host:port`` keeps gRPC's
#: pick_first (one connection), as through a ClusterIP Service.
BALANCED_SCHEMES = ("dns:", "ipv4:", "ipv6:")

_LB_POLICY = "grpc.lb_policy_name"

#: The metadata key of the bearer token.
AUTHORIZATION_KEY = "authorization"

#: The metadata key naming this client and its version to the server's log.
CLIENT_KEY = "x-toolguard-client"
_CLIENT = (CLIENT_KEY, f"python/{__version__}")

_TOOL_KEYS = frozenset({"name", "description", "parameters", "input_schema", "aliases", "param_aliases",
                        "content_params"})
_PARAM_ALIAS_KEYS = frozenset({"param", "aliases", "allow_empty"})
_TOOL_CALL_DELTA_KEYS = frozenset({"index", "id", "name", "arguments", "done", "type", "function"})


class ToolGuardClient:
    """A client of the toolguard gRPC service bound to one session.

    Every call-carrying request gets a ``RequestContext`` built from the
    client's ``session_id``, ``model_id``, ``workspace`` and
    ``mistake_limit``. A model's mistake comes back as an ordinary answer (a
    ``Verdict`` with ``ok`` false and ``feedback``); the caller's mistakes
    and server faults raise :class:`ToolGuardError`.

    Use it as a context manager so the channel is closed::

        with ToolGuardClient("127.0.0.1:7700", session_id="task-42") as tg:
            verdict = tg.validate("Write", '{"file_path": "a.py", "text": "x"}')

    Args:
        target: The server address (``"host:port"``), or an existing
            ``grpc.Channel``, which the client then uses but never closes.
        session_id: The session whose consecutive mistakes are counted.
            The server requires one (an empty id is INVALID_ARGUMENT).
        model_id: The model that produced the calls (``"claude-sonnet-4-5"``).
        workspace: The workspace ExecuteWrite/ExecuteEdit act on; empty for
            the server's default.
        mistake_limit: Lower the server's consecutive-mistake limit; 0 keeps it.
        timeout: Default deadline of each call, in seconds; None for none.
        metadata: gRPC metadata sent with every call.
        token: The bearer token of a server started with
            ``--auth-tokens-file``: every call, streams included, then
            carries ``authorization: Bearer <token>``. None or ``""`` for
            none. It may not be combined with an ``authorization`` entry in
            ``metadata``.
        credentials: Channel credentials for TLS
            (``grpc.ssl_channel_credentials(root_certificates=...)``; with
            ``private_key`` and ``certificate_chain`` for mutual TLS); None
            for a plaintext channel.
        options: gRPC channel options (``[("grpc.max_receive_message_length", n)]``),
            on top of :data:`DEFAULT_CHANNEL_OPTIONS`.
        balance: Send each call to the next of the addresses the target
            resolves to (gRPC's ``round_robin``), so servers added behind a
            name (a headless Service's pods) get calls before the client's
            connections reach their maximum age. None (the default) balances
            targets naming a resolver, ``dns:///host:port``, ``ipv4:a:p,b:p``
            or ``ipv6:``; True balances any target; False keeps gRPC's
            pick_first. A ``grpc.lb_policy_name`` in ``options`` wins.
    """

    def __init__(
        self,
        target: str | grpc.Channel,
        *,
        session_id: str,
        model_id: str = "",
        workspace: str = "",
        mistake_limit: int = 0,
        timeout: float | None = None,
        metadata: MetadataLike | None = None,
        token: str | None = None,
        credentials: grpc.ChannelCredentials | None = None,
        options: Sequence[tuple[str, Any]] | None = None,
        balance: bool | None = None,
    ) -> None:
        if metadata is None:
            user_metadata: tuple[tuple[str, str], ...] = ()
        elif isinstance(metadata, Mapping):
            user_metadata = tuple(metadata.items())
        else:
            user_metadata = tuple(metadata)
        if token:
            _check_token(token)
            if any(k.lower() == AUTHORIZATION_KEY for k, _ in user_metadata):
                raise ValueError("give the bearer token as token or as authorization metadata, not both")
        if isinstance(target, grpc.Channel):
            if balance:
                raise ValueError("balance applies to a target address, not to a channel given")
            self._channel = target
            self._owns_channel = False
        else:
            merged = dict(DEFAULT_CHANNEL_OPTIONS)
            if balance or (balance is None and target.startswith(BALANCED_SCHEMES)):
                merged[_LB_POLICY] = "round_robin"
            merged.update(dict(options or ()))
            opts = list(merged.items())
            if credentials is not None:
                self._channel = grpc.secure_channel(target, credentials, options=opts)
            else:
                self._channel = grpc.insecure_channel(target, options=opts)
            self._owns_channel = True
        self._stub = pb_grpc.ToolGuardServiceStub(self._channel)
        self.session_id = session_id
        self.model_id = model_id
        self.workspace = workspace
        self.mistake_limit = mistake_limit
        self.timeout = timeout
        #: The metadata given to the client (without the token's).
        self.metadata = user_metadata
        #: The bearer token, or None.
        self.token = token or None

    # -- lifecycle ---------------------------------------------------------

    @property
    def channel(self) -> grpc.Channel:
        """The underlying gRPC channel."""
        return self._channel

    @property
    def stub(self) -> pb_grpc.ToolGuardServiceStub:
        """The generated stub, for anything this helper does not cover."""
        return self._stub

    def with_session(self, session_id: str, **overrides: Any) -> "ToolGuardClient":
        """Returns a client for another session (and optionally another
        ``model_id``, ``workspace``, ``mistake_limit``, ``timeout``,
        ``metadata`` or ``token``) that shares this client's channel. Closing
        it does not close the channel."""
        settings: dict[str, Any] = dict(
            session_id=session_id, model_id=self.model_id, workspace=self.workspace,
            mistake_limit=self.mistake_limit, timeout=self.timeout, metadata=self.metadata, token=self.token)
        unknown = set(overrides) - set(settings)
        if unknown:
            raise TypeError(f"with_session: unexpected argument(s) {sorted(unknown)}")
        settings.update(overrides)
        return ToolGuardClient(self._channel, **settings)

    def close(self) -> None:
        """Closes the channel (unless it was handed in)."""
        if self._owns_channel:
            self._channel.close()

    def __enter__(self) -> "ToolGuardClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- unary calls -------------------------------------------------------

    def context(self) -> pb.RequestContext:
        """The RequestContext this client sends."""
        return pb.RequestContext(session_id=self.session_id, model_id=self.model_id,
                                 workspace=self.workspace, mistake_limit=self.mistake_limit)

    def validate(
        self,
        name: str = "",
        arguments: str | Mapping[str, Any] | None = None,
        *,
        params: Mapping[str, str] | None = None,
        xml_block: str | None = None,
        call_id: str = "",
        tools: Iterable[ToolLike] | None = None,
        timeout: float | None = None,
    ) -> pb.Verdict:
        """Repairs and validates one tool call (ValidateToolCall).

        Give the arguments in at most one form:

        Args:
            name: The tool name as the model wrote it (``"Write"``); may be
                empty with ``xml_block``, whose outer tag names the tool.
            arguments: The raw arguments text exactly as the model emitted it
                (broken JSON, a Python dict...). A dict is sent as its JSON.
            params: Parameters already split out of an XML block, each value a
                string (Cline's ``block.params``).
            xml_block: A whole XML tool block
                (``"<write_to_file><path>a.py</path>...</write_to_file>"``).
            call_id: The call's id (OpenAI ``tool_call.id``); echoed back.
            tools: Definitions of tools the server does not know.
            timeout: This call's deadline in seconds; None for the client's.

        Returns:
            The Verdict: ``ok``, ``tool_name``, ``arguments`` /
            ``arguments_json``, ``repairs``, ``violations``, ``feedback`` and
            the session's ``mistakes``.

        Raises:
            ToolGuardError: the caller's mistake (no session id, a bad tool
                definition...) or a server fault.
            ValueError: more than one argument form was given.
        """
        req = pb.ValidateToolCallRequest(
            context=self.context(),
            call=_tool_call(name, arguments, params, xml_block, call_id),
            tools=_tool_definitions(tools))
        return self._unary(self._stub.ValidateToolCall, req, timeout).verdict

    def write(
        self,
        name: str = "write_to_file",
        arguments: str | Mapping[str, Any] | None = None,
        *,
        params: Mapping[str, str] | None = None,
        xml_block: str | None = None,
        call_id: str = "",
        tools: Iterable[ToolLike] | None = None,
        expected_sha256: str = "",
        dry_run: bool = False,
        timeout: float | None = None,
    ) -> pb.ExecuteWriteResponse:
        """Repairs, validates and executes a write call (ExecuteWrite) in the
        client's workspace.

        The call forms are those of :meth:`validate`. A model's mistake,
        including a path outside the workspace, is a response whose
        ``verdict.ok`` is false (``verdict.violations`` say why, e.g.
        ``OUTSIDE_WORKSPACE``) and nothing is written.

        Args:
            expected_sha256: Hex SHA-256 of the file as the model last read
                it; if the file changed since, the call raises
                ToolGuardError FAILED_PRECONDITION (reason ``FILE_CHANGED``).
            dry_run: Validate and compute the diff; write nothing.

        Returns:
            ``verdict``, ``change`` (path, kind, hashes, size) and ``diff``.

        Raises:
            ToolGuardError: e.g. INVALID_ARGUMENT ``WRONG_RPC`` for a call that
                is not a write, FAILED_PRECONDITION ``FILE_CHANGED``, NOT_FOUND
                ``WORKSPACE_NOT_FOUND``.
        """
        req = pb.ExecuteWriteRequest(
            context=self.context(),
            call=_tool_call(name, arguments, params, xml_block, call_id),
            tools=_tool_definitions(tools), expected_sha256=expected_sha256, dry_run=dry_run)
        return self._unary(self._stub.ExecuteWrite, req, timeout)

    def edit(
        self,
        name: str = "edit",
        arguments: str | Mapping[str, Any] | None = None,
        *,
        params: Mapping[str, str] | None = None,
        xml_block: str | None = None,
        call_id: str = "",
        tools: Iterable[ToolLike] | None = None,
        expected_sha256: str = "",
        dry_run: bool = False,
        partial: bool = False,
        timeout: float | None = None,
    ) -> pb.ExecuteEditResponse:
        """Repairs, validates and applies an edit call (ExecuteEdit): ``edit``,
        ``multi_edit``, ``replace_in_file`` or ``apply_patch`` under any of
        their names.

        The call forms are those of :meth:`validate`. An edit that cannot be
        applied is a response whose ``verdict.ok`` is false (violation
        ``EDIT_NOT_FOUND`` or ``EDIT_AMBIGUOUS``, each edit's ``status`` and
        ``hint`` in ``edits``), not an exception.

        Args:
            expected_sha256: As in :meth:`write`.
            dry_run: Compute the results and the diff; write nothing.
            partial: Apply the edits that can be applied; by default a batch
                is all-or-nothing.

        Returns:
            ``verdict``, ``edits`` (one EditResult per edit), ``diff``,
            ``changes`` and ``applied``.
        """
        req = pb.ExecuteEditRequest(
            context=self.context(),
            call=_tool_call(name, arguments, params, xml_block, call_id),
            tools=_tool_definitions(tools), expected_sha256=expected_sha256, dry_run=dry_run,
            partial=partial)
        return self._unary(self._stub.ExecuteEdit, req, timeout)

    def read(
        self,
        path: str,
        *,
        offset: int = 0,
        limit: int = 0,
        line_numbers: bool = False,
        column: int = 0,
        head: int = 0,
        tail: int = 0,
        timeout: float | None = None,
    ) -> pb.ReadFileResponse:
        """Reads a text file of the workspace (ReadFile), confined and
        deny-aware as writes are.

        A refused path, a binary file or an offset past the end is a response
        whose ``verdict.ok`` is false (``OUTSIDE_WORKSPACE``,
        ``DENIED_PATH``, ``FILE_NOT_FOUND``, ``BINARY_FILE``,
        ``INVALID_VALUE``), counted in the session, not an exception. A
        ``column`` past the end of its line or inside a character raises
        ``INVALID_ARGUMENT`` (``INVALID_COLUMN``), naming the column to give.

        Args:
            path: The file, as the model wrote it.
            offset: 1-based first line; 0 for the first.
            limit: How many lines; 0 for all of them.
            line_numbers: Number the lines as ``"  12 | code"``, the shape an
                edit's old text may carry back.
            column: 1-based byte of line ``offset`` to start at, to read on
                inside a line longer than one answer; 0 for its first.
            head: Only the first ``head`` lines; 0 for no bound. Not with
                ``tail``, ``offset`` or ``limit``.
            tail: Only the last ``tail`` lines; 0 for no bound.

        Returns:
            ``verdict``, ``path``, ``content``, ``sha256`` (of the whole
            file, for a later ``expected_sha256``), ``size``,
            ``total_lines``, ``start_line``, ``end_line``, ``truncated``, and
            when truncated ``next_offset`` and ``next_column``: the
            ``offset`` and ``column`` of the read that returns the rest.
        """
        req = pb.ReadFileRequest(context=self.context(), path=path, offset=offset, limit=limit,
                                 line_numbers=line_numbers, column=column, head=head, tail=tail)
        return self._unary(self._stub.ReadFile, req, timeout)

    def search(
        self,
        pattern: str,
        *,
        path: str = "",
        include: str = "",
        exclude: Iterable[str] = (),
        literal: bool = False,
        ignore_case: bool = False,
        smart_case: bool = False,
        context_lines: int = 0,
        before: int = 0,
        after: int = 0,
        max_results: int = 0,
        output_mode: str = "",
        gitignore: bool = False,
        timeout: float | None = None,
    ) -> pb.SearchFilesResponse:
        """Searches the contents of the workspace's files (SearchFiles).

        ``pattern`` is a regular expression in Go RE2 syntax (no look-around,
        no back-references), matched within a line; with ``literal`` the text
        itself. A refused folder or a bad pattern is a response whose
        ``verdict.ok`` is false (``OUTSIDE_WORKSPACE``, ``DENIED_PATH``,
        ``INVALID_VALUE`` naming the position), counted in the session.

        Args:
            path: The folder to search in; "" for the workspace root.
            include: A glob of the files to search (``"*.py"``).
            exclude: Globs of paths to leave out.
            context_lines, before, after: Context lines around each match.
            max_results: The most matching lines (or files); 0 for 100.
            output_mode: ``content`` (default), ``files_with_matches`` or
                ``count``.

        Returns:
            ``verdict``, ``matches`` (``path``, ``line``, ``column``,
            ``text``, ``before``, ``after``) by path then line, ``files`` in
            the other modes, ``total_matches``, ``omitted``,
            ``files_searched``, ``binary_skipped``, ``partial``, ``cut`` and
            ``text``, the answer as a model reads it.
        """
        req = pb.SearchFilesRequest(context=self.context(), pattern=pattern, path=path, include=include,
                                    exclude=list(exclude), literal=literal, ignore_case=ignore_case,
                                    smart_case=smart_case, context_lines=context_lines, before=before, after=after,
                                    max_results=max_results, output_mode=output_mode, gitignore=gitignore)
        return self._unary(self._stub.SearchFiles, req, timeout)

    def list_directory(
        self,
        path: str = "",
        *,
        depth: int = 0,
        max_entries: int = 0,
        exclude: Iterable[str] = (),
        gitignore: bool = False,
        timeout: float | None = None,
    ) -> pb.ListDirectoryResponse:
        """Lists a folder of the workspace, or a tree with ``depth``
        (ListDirectory): each entry's type, size and a link's target (links
        are never followed); denied and ignored paths never appear.

        A refused folder or a bad pattern is a response whose
        ``verdict.ok`` is false, counted in the session, not an exception.

        Args:
            path: The folder, as the model wrote it; empty for the root.
            depth: Levels to list, 1 to 32; 0 for 1.
            max_entries: The most entries to return; 0 for 200 (capped at 5000).
            exclude: Glob patterns to leave out: a name without ``/``, a
                path below the folder with it.
            gitignore: Leave out what the ``.gitignore`` files ignore.

        Returns:
            ``verdict``, ``path``, ``entries`` (tree order, each with
            ``omitted`` for a folder the bound cut), totals, ``omitted``,
            ``partial`` and ``text``, the listing as the model reads it.
        """
        req = pb.ListDirectoryRequest(context=self.context(), path=path, depth=depth, max_entries=max_entries,
                                      exclude=list(exclude), gitignore=gitignore)
        return self._unary(self._stub.ListDirectory, req, timeout)

    def find_files(
        self,
        pattern: str,
        *,
        path: str = "",
        exclude: Iterable[str] = (),
        max_results: int = 0,
        gitignore: bool = False,
        timeout: float | None = None,
    ) -> pb.FindFilesResponse:
        """Finds paths of the workspace by a glob (FindFiles): ``**`` across
        folders, a pattern without ``/`` matching names at any depth.

        A bad pattern or a refused folder is a response whose
        ``verdict.ok`` is false (``INVALID_VALUE`` with feedback), not an
        exception.

        Returns:
            ``verdict``, ``path``, ``matches`` (by name, folder by folder),
            ``omitted``, ``partial`` and ``text``.
        """
        req = pb.FindFilesRequest(context=self.context(), pattern=pattern, path=path, exclude=list(exclude),
                                  max_results=max_results, gitignore=gitignore)
        return self._unary(self._stub.FindFiles, req, timeout)
    def file_info(self, paths: Sequence[str], *, timeout: float | None = None) -> pb.GetFileInfoResponse:
        """Describes paths of the workspace (GetFileInfo): type, size, mode,
        times, a link's target (never followed), a text file's line count
        and SHA-256, and whether the path is denied.

        Each path's refusal is beside it (``files[i].error``); a denied path
        carries only ``denied`` and ``denied_by``. The verdict is a mistake
        only when no path could be described. No path, or more than 100,
        raises ``INVALID_ARGUMENT``.

        Returns:
            ``verdict`` and ``files`` (FileInfo), one per path, in order.
        """
        req = pb.GetFileInfoRequest(context=self.context(), paths=list(paths))
        return self._unary(self._stub.GetFileInfo, req, timeout)

    def read_files(
        self,
        paths: Sequence[str],
        *,
        head: int = 0,
        tail: int = 0,
        line_numbers: bool = False,
        timeout: float | None = None,
    ) -> pb.ReadFilesResponse:
        """Reads several text files (ReadFiles), each through :meth:`read`'s
        checks, sharing the answer's bytes.

        Each file's refusal is beside it (``files[i].error``); the verdict
        is a mistake only when no file could be read. No path, or more than
        50, raises ``INVALID_ARGUMENT``.

        Args:
            head: Only each file's first ``head`` lines.
            tail: Only each file's last ``tail`` lines (not with ``head``).
            line_numbers: As in :meth:`read`.

        Returns:
            ``verdict`` and ``files`` (FileText), one per path, in order.
        """
        req = pb.ReadFilesRequest(context=self.context(), paths=list(paths), head=head, tail=tail,
                                  line_numbers=line_numbers)
        return self._unary(self._stub.ReadFiles, req, timeout)

    def read_media(self, path: str, *, timeout: float | None = None) -> pb.ReadMediaFileResponse:
        """Reads an image, audio or other media file (ReadMediaFile) as bytes
        and MIME type, up to the server's ``--max-media-bytes``.

        Returns:
            ``verdict``, ``path``, ``mime_type``, ``data`` (bytes) and
            ``sha256``; a refusal (``FILE_TOO_LARGE`` included) is a verdict.
        """
        req = pb.ReadMediaFileRequest(context=self.context(), path=path)
        return self._unary(self._stub.ReadMediaFile, req, timeout)

    def list_tools(self, model_id: str | None = None, *, timeout: float | None = None) -> pb.ListToolsResponse:
        """Lists the server's tools (ListTools) rendered for a model family.

        Args:
            model_id: The model the tools are for; None for the client's
                ``model_id``. The server picks the family from it
                (``"claude-sonnet-4-5"`` → ``native-next-gen``, whose tools
                use ``absolutePath``); ``""`` gives the generic family.

        Returns:
            ``tools`` (ToolSpec: ``definition``, ``openai_tool``,
            ``anthropic_tool``, ``xml_usage``, ``builtin``), sorted by name,
            and ``model_family``.
        """
        req = pb.ListToolsRequest(model_id=self.model_id if model_id is None else model_id)
        return self._unary(self._stub.ListTools, req, timeout)

    def get_session(self, session_id: str | None = None, *, timeout: float | None = None) -> pb.Session:
        """Reads a session's mistake state (GetSession); None for the
        client's session. An unknown or expired session comes back with
        ``exists`` false and zero mistakes."""
        req = pb.GetSessionRequest(session_id=self.session_id if session_id is None else session_id)
        return self._unary(self._stub.GetSession, req, timeout).session

    def reset_session(self, session_id: str | None = None, *, timeout: float | None = None) -> pb.Session:
        """Clears a session's mistake counter and call history
        (ResetSession); None for the client's session. Returns the session
        after the reset."""
        req = pb.ResetSessionRequest(session_id=self.session_id if session_id is None else session_id)
        return self._unary(self._stub.ResetSession, req, timeout).session

    # -- streaming ---------------------------------------------------------

    def stream(
        self,
        format: str | int,
        deltas: Iterable[Delta] = (),
        *,
        finish_reason: str = "stop",
        tools: Iterable[ToolLike] | None = None,
        tool_names: Iterable[str] | None = None,
        execute_on_complete: bool = False,
        dry_run: bool = False,
        partial: bool = False,
        max_call_bytes: int = 0,
        max_param_bytes: int = 0,
        timeout: float | None = None,
    ) -> Iterator[pb.StreamToolCallsResponse]:
        """Parses tool calls out of a model's response while it streams
        (StreamToolCalls), yielding the server's events as they arrive.

        Sends a ``start`` frame, one ``delta`` frame per item of ``deltas``
        (consumed lazily, so it may be the model's live stream), then an
        ``end`` frame with ``finish_reason``. Each event has exactly one of
        ``text``, ``call_started``, ``param_update``, ``call_complete``,
        ``error`` and ``done`` (the last event)::

            for event in client.stream("xml_tags", chunks, finish_reason="stop"):
                kind = event.WhichOneof("event")
                if kind == "text":
                    print(event.text.text, end="")
                elif kind == "call_complete":
                    print(event.call_complete.verdict.ok)

        Args:
            format: ``"xml_tags"``, ``"openai"``, ``"anthropic"``,
                ``"hermes"``, ``"qwen_xml"``, ``"minimax"``, ``"glm45"``,
                ``"harmony"``, ``"deepseek_v3"``, ``"deepseek_v31"``,
                ``"kimi_k2"``, ``"mistral"``, ``"pythonic"``,
                ``"llama3_json"``, ``"claude_xml"``, ``"auto"`` (any case, with or
                without the ``STREAM_FORMAT_`` prefix) or a StreamFormat value.
            deltas: The model's output: strings of text, and for ``openai`` and
                ``anthropic`` tool-call fragments as dicts (``{"index": 0,
                "id": "call_1", "name": "write_to_file", "arguments": "{\\"pa",
                "done": False}``, or OpenAI's ``delta.tool_calls[]`` items as
                they come); see :data:`Delta`.
            finish_reason: The model's finish reason (``"stop"``,
                ``"tool_calls"``, ``"length"``, ``"max_tokens"``...). A length
                limit marks every call still open as truncated.
            tools: Definitions of tools the server does not know.
            tool_names: The server's tools in play; empty for all of them.
            execute_on_complete: Execute each complete, usable write or edit
                call as it closes (``call_complete.execution``).
            dry_run: With ``execute_on_complete``: write nothing.
            partial: With ``execute_on_complete``: partial edit batches.
            max_call_bytes: Lower the server's limit on one call's size.
            max_param_bytes: Lower the server's limit on one parameter's size.
            timeout: The whole stream's deadline in seconds; None for the
                client's.

        Yields:
            StreamToolCallsResponse events, the last one ``done``.

        Raises:
            ToolGuardError: the stream ended with an error status (a caller's
                mistake such as a frame that does not fit the format is
                INVALID_ARGUMENT; UNIMPLEMENTED from a server without the
                handler).
            Exception: whatever iterating ``deltas`` raised (the stream is
                cancelled first).
        """
        start = pb.StreamStart(
            context=self.context(),
            format=cast("pb.StreamFormat", stream_format(format)),
            tools=_tool_definitions(tools),
            tool_names=list(tool_names or ()),
            options=pb.StreamOptions(execute_on_complete=execute_on_complete, dry_run=dry_run, partial=partial,
                                     max_call_bytes=max_call_bytes, max_param_bytes=max_param_bytes))
        return self._stream(start, deltas, finish_reason, timeout)

    def _stream(self, start: pb.StreamStart, deltas: Iterable[Delta], finish_reason: str,
                timeout: float | None) -> Iterator[pb.StreamToolCallsResponse]:
        failure: list[BaseException] = []
        call_ready = threading.Event()
        holder: list[Any] = []

        def requests() -> Iterator[pb.StreamToolCallsRequest]:
            # gRPC runs this in its own thread: an exception here (from the
            # caller's iterator or a bad delta) is kept for the caller, and
            # the call is cancelled so the response loop wakes up.
            yield pb.StreamToolCallsRequest(start=start)
            try:
                for item in deltas:
                    yield pb.StreamToolCallsRequest(delta=stream_delta(item))
            except GeneratorExit:
                raise
            except BaseException as exc:  # noqa: BLE001 - handed back to the caller
                failure.append(exc)
                call_ready.wait(5)
                if holder:
                    holder[0].cancel()
                return
            yield pb.StreamToolCallsRequest(end=pb.StreamEnd(finish_reason=finish_reason))

        def events() -> Iterator[pb.StreamToolCallsResponse]:
            call = self._stub.StreamToolCalls(requests(), timeout=self._timeout(timeout),
                                              metadata=self._metadata())
            holder.append(call)
            call_ready.set()
            try:
                for event in call:
                    yield event
            except grpc.RpcError as err:
                if failure:
                    raise failure[0] from None
                raise ToolGuardError.from_rpc_error(err) from None
            finally:
                # Stops the call when the caller leaves the loop early; a
                # no-op once the server has closed the stream.
                call.cancel()
            if failure:  # the server closed the stream before the cancel
                raise failure[0]

        return events()

    # -- plumbing ----------------------------------------------------------

    def _metadata(self) -> tuple[tuple[str, str], ...]:
        """The metadata of a call: the client's, the bearer token, and the
        client's name and version (unless the caller's metadata names one)."""
        md = self.metadata
        if self.token:
            md = md + ((AUTHORIZATION_KEY, f"Bearer {self.token}"),)
        if not any(k.lower() == CLIENT_KEY for k, _ in md):
            md = md + (_CLIENT,)
        return md

    def _timeout(self, timeout: float | None) -> float | None:
        return self.timeout if timeout is None else timeout

    def _unary(self, method: Callable[..., _T], request: Any, timeout: float | None) -> _T:
        try:
            return method(request, timeout=self._timeout(timeout), metadata=self._metadata())
        except grpc.RpcError as err:
            raise ToolGuardError.from_rpc_error(err) from None


# -- conversions ---------------------------------------------------------------


def arguments_dict(verdict: pb.Verdict) -> dict[str, Any]:
    """The verdict's normalised arguments as a dict, read from
    ``arguments_json`` so numbers keep the precision the model gave them.
    Empty when the arguments could not be parsed."""
    if not verdict.arguments_json:
        return {}
    value = json.loads(verdict.arguments_json)
    return value if isinstance(value, dict) else {}


def stream_format(value: str | int) -> int:
    """Returns the StreamFormat value for ``"xml_tags"``, ``"OPENAI"``,
    ``"STREAM_FORMAT_HERMES"``... (or an int, unchanged).

    Raises:
        ValueError: an unknown name.
    """
    if isinstance(value, int):
        return value
    name = value.strip().upper().replace("-", "_")
    if not name.startswith("STREAM_FORMAT_"):
        name = "STREAM_FORMAT_" + name
    try:
        return pb.StreamFormat.Value(name)
    except ValueError:
        known = ", ".join(n.removeprefix("STREAM_FORMAT_").lower() for n in pb.StreamFormat.keys()
                          if n != "STREAM_FORMAT_UNSPECIFIED")
        raise ValueError(f"unknown stream format {value!r}: want one of {known}") from None


def tool_definition(tool: ToolLike) -> pb.ToolDefinition:
    """Converts a tool dict to a ToolDefinition (a ToolDefinition is returned
    as is).

    The dict has ``name``, ``parameters`` (the JSON Schema of the arguments
    object, as a dict; ``input_schema`` is accepted for Anthropic's shape),
    and optionally ``description``, ``aliases`` (list), ``param_aliases``
    (``{"path": ["file_path"]}`` or ``[{"param": "path", "aliases":
    ["file_path"], "allow_empty": False}]``) and ``content_params`` (list). An
    OpenAI tool ``{"type": "function", "function": {...}}`` is unwrapped.

    Raises:
        ValueError: an unknown key (a typo would otherwise go unnoticed).
    """
    if isinstance(tool, pb.ToolDefinition):
        return tool
    if "function" in tool and set(tool) <= {"type", "function"}:
        tool = tool["function"]
    unknown = set(tool) - _TOOL_KEYS
    if unknown:
        raise ValueError(f"tool {tool.get('name', '?')!r}: unknown key(s) {sorted(unknown)}; "
                         f"want {sorted(_TOOL_KEYS)}")
    if "parameters" in tool and "input_schema" in tool:
        raise ValueError(f"tool {tool.get('name', '?')!r}: give parameters or input_schema, not both")
    schema = tool.get("parameters", tool.get("input_schema"))
    out = pb.ToolDefinition(
        name=tool.get("name", ""),
        description=tool.get("description", "") or "",
        aliases=list(tool.get("aliases") or ()),
        param_aliases=_param_aliases(tool.get("param_aliases")),
        content_params=list(tool.get("content_params") or ()))
    if schema is not None:
        out.parameters.CopyFrom(_struct(schema))
    return out


def tool_call_delta(fragment: pb.ToolCallDelta | Mapping[str, Any]) -> pb.ToolCallDelta:
    """Converts a tool-call fragment to a ToolCallDelta: a dict with
    ``index``, ``id``, ``name``, ``arguments`` and ``done``, or an OpenAI
    ``choices[].delta.tool_calls[]`` item (``{"index", "id", "type",
    "function": {"name", "arguments"}}``). ``None`` values count as empty."""
    if isinstance(fragment, pb.ToolCallDelta):
        return fragment
    unknown = set(fragment) - _TOOL_CALL_DELTA_KEYS
    if unknown:
        raise ValueError(f"tool call delta: unknown key(s) {sorted(unknown)}; "
                         "want index, id, name, arguments, done")
    fn = fragment.get("function") or {}
    return pb.ToolCallDelta(
        index=int(fragment.get("index") or 0),
        id=fragment.get("id") or "",
        name=fragment.get("name") or fn.get("name") or "",
        arguments=fragment.get("arguments") or fn.get("arguments") or "",
        done=bool(fragment.get("done")))


def stream_delta(item: Delta) -> pb.StreamDelta:
    """Converts one item of :meth:`ToolGuardClient.stream`'s ``deltas`` to a
    StreamDelta: text for a string, one tool-call fragment for a fragment
    dict, both for a ``{"text": ..., "tool_calls": [...]}`` dict."""
    if isinstance(item, pb.StreamDelta):
        return item
    if isinstance(item, str):
        return pb.StreamDelta(text=item)
    if isinstance(item, pb.ToolCallDelta):
        return pb.StreamDelta(tool_calls=[item])
    if isinstance(item, Mapping):
        if "text" in item or "tool_calls" in item:
            unknown = set(item) - {"text", "tool_calls"}
            if unknown:
                raise ValueError(f"stream delta: unknown key(s) {sorted(unknown)}; want text, tool_calls")
            return pb.StreamDelta(text=item.get("text") or "",
                                  tool_calls=[tool_call_delta(f) for f in item.get("tool_calls") or ()])
        return pb.StreamDelta(tool_calls=[tool_call_delta(item)])
    raise TypeError(f"stream delta: want str, dict, StreamDelta or ToolCallDelta, not {type(item).__name__}")


def _tool_call(name: str, arguments: str | Mapping[str, Any] | None, params: Mapping[str, str] | None,
               xml_block: str | None, call_id: str) -> pb.ToolCall:
    if sum(x is not None for x in (arguments, params, xml_block)) > 1:
        raise ValueError("give at most one of arguments, params and xml_block")
    call = pb.ToolCall(name=name, id=call_id)
    if arguments is not None:
        if isinstance(arguments, (bytes, bytearray)):
            arguments = arguments.decode("utf-8")
        elif not isinstance(arguments, str):
            arguments = json.dumps(arguments, ensure_ascii=False)
        call.arguments_text = arguments
    elif params is not None:
        for key, value in params.items():
            if not isinstance(value, str):
                raise TypeError(f"params[{key!r}]: values are strings as parsed from XML, "
                                f"not {type(value).__name__}")
        call.params.values.update(params)
    elif xml_block is not None:
        call.xml_block = xml_block
    return call


def _check_token(token: str) -> None:
    # gRPC metadata values are printable ASCII, and the server splits
    # "Bearer <token>" at a space: a token read from a file with its newline
    # would fail in an obscure way at the first call.
    if not isinstance(token, str):
        raise TypeError(f"token: want str, not {type(token).__name__}")
    if not all("!" <= c <= "~" for c in token):
        raise ValueError("token: only visible ASCII characters, no spaces or newlines "
                         "(strip a token read from a file)")


def _tool_definitions(tools: Iterable[ToolLike] | None) -> list[pb.ToolDefinition]:
    return [tool_definition(t) for t in tools or ()]


def _param_aliases(value: Any) -> list[pb.ParamAliases]:
    if not value:
        return []
    if isinstance(value, Mapping):
        return [pb.ParamAliases(param=param, aliases=list(aliases)) for param, aliases in value.items()]
    out = []
    for entry in value:
        if isinstance(entry, pb.ParamAliases):
            out.append(entry)
            continue
        unknown = set(entry) - _PARAM_ALIAS_KEYS
        if unknown:
            raise ValueError(f"param_aliases: unknown key(s) {sorted(unknown)}; want {sorted(_PARAM_ALIAS_KEYS)}")
        out.append(pb.ParamAliases(param=entry["param"], aliases=list(entry.get("aliases") or ()),
                                   allow_empty=bool(entry.get("allow_empty", False))))
    return out


def _struct(value: Mapping[str, Any] | struct_pb2.Struct) -> struct_pb2.Struct:
    if isinstance(value, struct_pb2.Struct):
        return value
    if not isinstance(value, Mapping):
        raise TypeError(f"parameters: want a JSON Schema object (dict), not {type(value).__name__}")
    out = struct_pb2.Struct()
    out.update(value)
    return out
