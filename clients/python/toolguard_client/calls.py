"""Framework-free tool-call guarding: one call in the shape an agent already
holds (a plain dict), the repaired call or the feedback message out.

    from toolguard_client import ToolGuardClient, guard_tool_call

    with ToolGuardClient("127.0.0.1:7700", session_id="task-42") as tg:
        for call in message["tool_calls"]:          # OpenAI chat completion
            g = guard_tool_call(tg, call, tools=tools)
            if g.ok:
                run(g.call)                         # repaired, same shape
            else:
                messages.append(g.feedback)         # {"role": "tool", ...}

Two shapes are understood, and each comes back in its own shape:

- OpenAI's tool call, ``{"id", "type": "function", "function": {"name",
  "arguments"}}``, ``arguments`` being the JSON text as the model wrote it;
  its feedback is a tool message ``{"role": "tool", "tool_call_id",
  "content"}``.
- Anthropic's ``tool_use`` content block, ``{"type": "tool_use", "id",
  "name", "input"}``; its feedback is a ``tool_result`` block
  ``{"type": "tool_result", "tool_use_id", "content", "is_error": True}``.

Only the standard library and this package are imported: no OpenAI,
Anthropic or LangChain SDK, whose objects convert to these dicts
(``model_dump()``, ``message.tool_calls``).
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from ._proto import toolguard_pb2 as pb
from .client import ToolLike

if TYPE_CHECKING:
    from .client import ToolGuardClient

__all__ = ["GuardedCall", "guard_tool_call"]

#: Keys of an Anthropic tool definition that say nothing about its schema.
_ANTHROPIC_TOOL_EXTRAS = frozenset({"type", "cache_control"})


@dataclass(frozen=True)
class GuardedCall:
    """What toolguard made of one tool call.

    Attributes:
        ok: The call may run: ``call`` is it, repaired if it had to be. Not
            ok when the model's call cannot be made valid, or when, ``tools``
            given, it resolves to none of them (a server built-in's alias).
        call: The call in the shape it was given (a new dict): repaired when
            ``ok``; as given otherwise.
        feedback: When not ``ok``, what to send the model instead of the
            tool's result, in the call's API (an OpenAI tool message or an
            Anthropic ``tool_result`` block with ``is_error``); None when ok.
        verdict: The whole Verdict: ``repairs``, ``violations``,
            ``mistakes`` (``limit_reached`` says the model is stuck).
    """

    ok: bool
    call: dict[str, Any]
    feedback: dict[str, Any] | None
    verdict: pb.Verdict

    @property
    def repaired(self) -> bool:
        """The call may run and toolguard changed it (name or arguments)."""
        return self.ok and len(self.verdict.repairs) > 0


def guard_tool_call(
    client: "ToolGuardClient",
    call: Mapping[str, Any],
    *,
    tools: Iterable[ToolLike] | None = None,
    timeout: float | None = None,
) -> GuardedCall:
    """Repairs and validates one OpenAI- or Anthropic-shaped tool call
    (ValidateToolCall, in the client's session).

    Args:
        client: The client; its session counts the model's mistakes.
        call: An OpenAI tool call or an Anthropic ``tool_use`` block, as a
            plain dict.
        tools: The tools the model was given, in either API's shape (OpenAI
            ``{"type": "function", "function": {...}}`` or Anthropic
            ``{"name", "input_schema"}``). Give them for the agent's own
            tools: calls then resolve to their names and schemas. Without
            them, calls resolve to the server's built-in tools, and a
            repaired call carries the built-in's name (``write_to_file``).
        timeout: The call's deadline in seconds; None for the client's.

    Returns:
        A GuardedCall: ``ok``, ``call`` (same shape), ``feedback`` (same
        API), ``verdict``.

    Raises:
        ValueError: the dict is neither shape.
        ToolGuardError: the caller's mistake (a bad tool definition...) or
            a server fault; a model's mistake is a GuardedCall, not ok.
    """
    defs = [_tool(t) for t in tools] if tools is not None else None
    if _is_openai(call):
        fn = call["function"]
        verdict = client.validate(fn.get("name") or "", _arguments(fn.get("arguments")),
                                  call_id=str(call.get("id") or ""), tools=defs, timeout=timeout)
        out = copy.deepcopy(dict(call))
        feedback = _refusal(verdict, fn.get("name") or "", defs)
        if feedback is not None:
            return GuardedCall(False, out, {"role": "tool", "tool_call_id": call.get("id") or "",
                                            "content": feedback}, verdict)
        out["function"] = dict(out["function"], name=verdict.tool_name)
        if isinstance(fn.get("arguments"), Mapping):  # a framework parsed it: keep a dict
            out["function"]["arguments"] = json.loads(verdict.arguments_json)
        else:
            out["function"]["arguments"] = verdict.arguments_json
        return GuardedCall(True, out, None, verdict)
    if _is_anthropic(call):
        verdict = client.validate(call.get("name") or "", _arguments(call.get("input")),
                                  call_id=str(call.get("id") or ""), tools=defs, timeout=timeout)
        out = copy.deepcopy(dict(call))
        feedback = _refusal(verdict, call.get("name") or "", defs)
        if feedback is not None:
            return GuardedCall(False, out, {"type": "tool_result", "tool_use_id": call.get("id") or "",
                                            "content": feedback, "is_error": True}, verdict)
        out["name"], out["input"] = verdict.tool_name, json.loads(verdict.arguments_json)
        return GuardedCall(True, out, None, verdict)
    raise ValueError("not a tool call: want an OpenAI tool call ({'id', 'type': 'function', "
                     "'function': {'name', 'arguments'}}) or an Anthropic tool_use block "
                     "({'type': 'tool_use', 'id', 'name', 'input'})")


def _refusal(verdict: pb.Verdict, name: str, defs: list[ToolLike] | None) -> str | None:
    """The feedback for the model, or None when the call may run: the
    verdict's, or, when the call resolved to a server built-in that is not
    among the agent's tools (``create_file`` read as ``write_to_file``: the
    server keeps its built-ins beside declared tools), one naming the
    agent's tools."""
    if not verdict.ok:
        return verdict.feedback
    if defs is None:
        return None
    names = [_tool_name(t) for t in defs]
    if verdict.tool_name in names:
        return None
    return (f"Error: the {name} tool call could not be used.\n"
            f"- Unknown tool \"{name}\": the tools are {', '.join(names)}.")


def _tool_name(tool: ToolLike) -> str:
    if isinstance(tool, pb.ToolDefinition):
        return tool.name
    fn = tool.get("function")
    return str((fn if isinstance(fn, Mapping) else tool).get("name") or "")


def _is_openai(call: Mapping[str, Any]) -> bool:
    return isinstance(call.get("function"), Mapping) and call.get("type", "function") == "function"


def _is_anthropic(call: Mapping[str, Any]) -> bool:
    return call.get("type") == "tool_use" and "function" not in call


def _arguments(value: Any) -> str:
    """The arguments as the server reads them: text exactly as written (an
    empty or missing one is ``{}``: its missing parameters are reported), an
    object as its JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _tool(tool: ToolLike) -> ToolLike:
    """A tool definition as sent: without the keys that are not its schema
    (OpenAI's ``strict``, Anthropic's ``type`` and ``cache_control``). The
    server resolves ``write`` to the agent's ``Write`` before a built-in of
    that alias (docs/api.md, "Which tool a name stands for")."""
    if not isinstance(tool, Mapping):
        return tool
    if "function" in tool and set(tool) <= {"type", "function"} and isinstance(tool["function"], Mapping):
        return {k: v for k, v in tool["function"].items() if k != "strict"}
    if "input_schema" in tool:
        return {k: v for k, v in tool.items() if k not in _ANTHROPIC_TOOL_EXTRAS}
    return tool
