"""ToolGuardError: a gRPC error status from toolguard, with its details decoded.

toolguard answers a model's mistake with an ordinary response (a Verdict with
``ok`` false and feedback). Only the caller's mistakes (INVALID_ARGUMENT,
NOT_FOUND, FAILED_PRECONDITION...) and the server's own faults are errors.
They carry a ``google.rpc.Status`` in the ``grpc-status-details-bin``
trailer, whose details hold a ``google.rpc.ErrorInfo`` (domain
``toolguard.dev``, a stable ``reason`` such as ``SESSION_ID_REQUIRED``),
for bad fields a ``google.rpc.BadRequest``, and for a rate limit
(``RATE_LIMITED``) a ``google.rpc.RetryInfo`` saying when to retry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import grpc

from ._proto import error_details_pb2, status_pb2

__all__ = [
    "ERROR_DOMAIN",
    "STATUS_DETAILS_KEY",
    "FieldViolation",
    "PreconditionViolation",
    "ToolGuardError",
]

#: The google.rpc.ErrorInfo domain of toolguard's errors.
ERROR_DOMAIN = "toolguard.dev"

#: The trailer that carries the serialised google.rpc.Status.
STATUS_DETAILS_KEY = "grpc-status-details-bin"


@dataclass(frozen=True)
class FieldViolation:
    """One bad field of a request (a google.rpc.BadRequest.FieldViolation)."""

    #: Path of the field in the request, e.g. ``"context.session_id"``.
    field: str
    #: Why the field is bad.
    description: str
    #: Stable reason, as ErrorInfo.reason (e.g. ``"SESSION_ID_REQUIRED"``).
    reason: str = ""


@dataclass(frozen=True)
class PreconditionViolation:
    """One failed precondition (a google.rpc.PreconditionFailure.Violation),
    e.g. type ``FILE_CHANGED`` with the file's path as subject."""

    type: str
    subject: str
    description: str


class ToolGuardError(Exception):
    """An error status returned by the toolguard server.

    Attributes:
        code: The gRPC status code (``grpc.StatusCode.INVALID_ARGUMENT``...).
        message: The status message, for people.
        reason: ``ErrorInfo.reason`` (``"SESSION_ID_REQUIRED"``,
            ``"WRONG_RPC"``, ``"FILE_CHANGED"``...); empty when the status
            carries no ErrorInfo (``UNIMPLEMENTED``, ``DEADLINE_EXCEEDED``,
            a bare ``INTERNAL``...).
        domain: ``ErrorInfo.domain``, ``"toolguard.dev"`` for toolguard's own.
        metadata: ``ErrorInfo.metadata`` (e.g. ``{"tool": "edit"}``).
        field_violations: The ``google.rpc.BadRequest`` field violations.
        precondition_violations: The ``google.rpc.PreconditionFailure``
            violations.
        retry_delay: Seconds to wait before retrying, from a
            ``google.rpc.RetryInfo`` (RESOURCE_EXHAUSTED ``RATE_LIMITED``,
            ``SERVER_MEMORY_BUSY``);
            None when the status carries none.
        details: Every detail message of the status, unpacked when its type
            is known, else the ``google.protobuf.Any`` as received.
        status: The decoded ``google.rpc.Status``, or None when the trailer
            was absent.
        trailing_metadata: The call's trailing metadata, as received.
        rpc_error: The ``grpc.RpcError`` this error was made from, if any.
    """

    code: grpc.StatusCode
    message: str
    reason: str
    domain: str
    metadata: dict[str, str]
    field_violations: list[FieldViolation]
    precondition_violations: list[PreconditionViolation]
    retry_delay: float | None
    details: list[Any]
    status: status_pb2.Status | None
    trailing_metadata: tuple[tuple[str, Any], ...]
    rpc_error: grpc.RpcError | None

    def __init__(
        self,
        code: grpc.StatusCode,
        message: str,
        *,
        status: status_pb2.Status | None = None,
        trailing_metadata: Sequence[tuple[str, Any]] = (),
        rpc_error: grpc.RpcError | None = None,
    ) -> None:
        self.code = code
        self.rpc_error = rpc_error
        self.message = message
        self.status = status
        self.trailing_metadata = tuple((k, v) for k, v in trailing_metadata)
        self.reason = ""
        self.domain = ""
        self.metadata = {}
        self.field_violations = []
        self.precondition_violations = []
        self.retry_delay = None
        self.details = []
        if status is not None:
            self._read_details(status)
        super().__init__(str(self))

    def _read_details(self, status: status_pb2.Status) -> None:
        for any_msg in status.details:
            if any_msg.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                any_msg.Unpack(info)
                self.details.append(info)
                if not self.reason:
                    self.reason = info.reason
                    self.domain = info.domain
                    self.metadata = dict(info.metadata)
            elif any_msg.Is(error_details_pb2.BadRequest.DESCRIPTOR):
                bad = error_details_pb2.BadRequest()
                any_msg.Unpack(bad)
                self.details.append(bad)
                self.field_violations.extend(
                    # reason is newer than some googleapis-common-protos.
                    FieldViolation(v.field, v.description, getattr(v, "reason", ""))
                    for v in bad.field_violations
                )
            elif any_msg.Is(error_details_pb2.PreconditionFailure.DESCRIPTOR):
                pre = error_details_pb2.PreconditionFailure()
                any_msg.Unpack(pre)
                self.details.append(pre)
                self.precondition_violations.extend(
                    PreconditionViolation(v.type, v.subject, v.description) for v in pre.violations
                )
            elif any_msg.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
                retry = error_details_pb2.RetryInfo()
                any_msg.Unpack(retry)
                self.details.append(retry)
                if self.retry_delay is None:
                    d = retry.retry_delay
                    self.retry_delay = max(0.0, d.seconds + d.nanos / 1e9)
            else:
                self.details.append(any_msg)

    @classmethod
    def from_rpc_error(cls, err: grpc.RpcError) -> "ToolGuardError":
        """Builds a ToolGuardError from a ``grpc.RpcError`` raised by a call,
        decoding the ``grpc-status-details-bin`` trailer."""
        code = err.code() if hasattr(err, "code") else grpc.StatusCode.UNKNOWN
        message = err.details() if hasattr(err, "details") else str(err)
        trailers: Sequence[tuple[str, Any]] = ()
        if hasattr(err, "trailing_metadata"):
            trailers = err.trailing_metadata() or ()
        return cls(code or grpc.StatusCode.UNKNOWN, message or "", status=_status_of(trailers),
                   trailing_metadata=trailers, rpc_error=err)

    def __str__(self) -> str:
        name = self.code.name if isinstance(self.code, grpc.StatusCode) else str(self.code)
        head = f"{name} {self.reason}" if self.reason else name
        return f"{head}: {self.message}" if self.message else head

    def __repr__(self) -> str:
        return (f"ToolGuardError(code={self.code!r}, reason={self.reason!r}, message={self.message!r}, "
                f"metadata={self.metadata!r}, field_violations={self.field_violations!r}, "
                f"retry_delay={self.retry_delay!r})")


def _status_of(trailers: Sequence[tuple[str, Any]]) -> status_pb2.Status | None:
    for key, value in trailers:
        if key == STATUS_DETAILS_KEY:
            if isinstance(value, str):  # never for -bin keys, but be lenient
                value = value.encode("latin-1")
            try:
                return status_pb2.Status.FromString(value)
            except Exception:  # a malformed trailer must not hide the error itself
                return None
    return None

