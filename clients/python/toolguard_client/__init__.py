"""Python client of toolguard, the gRPC service that repairs and validates the
tool calls an LLM emits and executes file writes and edits in a confined
workspace.

    from toolguard_client import ToolGuardClient, ToolGuardError

    with ToolGuardClient("127.0.0.1:7700", session_id="task-42") as tg:
        verdict = tg.validate("Write", "{'file_path': 'a.py', 'text': 'x = 1'}")
        if verdict.ok:
            run(verdict.tool_name, verdict.arguments_json)
        else:
            reply_to_model(verdict.feedback)

For a tool call held as a plain dict, OpenAI- or Anthropic-shaped,
``guard_tool_call`` returns the repaired call in the same shape or the
feedback message for the model (see ``toolguard_client.calls``).

The generated messages are under ``toolguard_client.pb`` (``pb.Verdict``,
``pb.StreamFormat``...), the stub under ``toolguard_client.pb_grpc``. The
contract is ``proto/toolguard/v1/toolguard.proto``.
"""

from ._proto import error_details_pb2, status_pb2
from ._proto import toolguard_pb2 as pb
from ._proto import toolguard_pb2_grpc as pb_grpc
from .calls import GuardedCall, guard_tool_call
from .client import (
    Delta,
    MetadataLike,
    ToolGuardClient,
    ToolLike,
    arguments_dict,
    stream_delta,
    stream_format,
    tool_call_delta,
    tool_definition,
)
from ._version import __version__
from .errors import ERROR_DOMAIN, FieldViolation, PreconditionViolation, ToolGuardError

__all__ = [
    "__version__",
    "ERROR_DOMAIN",
    "Delta",
    "FieldViolation",
    "GuardedCall",
    "MetadataLike",
    "PreconditionViolation",
    "ToolGuardClient",
    "ToolGuardError",
    "ToolLike",
    "arguments_dict",
    "error_details_pb2",
    "guard_tool_call",
    "pb",
    "pb_grpc",
    "status_pb2",
    "stream_delta",
    "stream_format",
    "tool_call_delta",
    "tool_definition",
]
