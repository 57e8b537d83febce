"""Loads the generated stubs in ``_gen/`` (see ``generate.sh``).

The generated modules import each other by their proto paths
(``from toolguard.v1 import toolguard_pb2``), so ``_gen/`` is a package root.
It is appended to ``sys.path`` once, after every existing entry, so an
installed ``googleapis-common-protos`` (if any) provides ``google.rpc``
instead of the vendored copy; ``google`` stays a namespace package shared
with ``google.protobuf``.
"""

from __future__ import annotations

import os
import sys

GEN_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_gen")
if GEN_DIR not in sys.path:
    sys.path.append(GEN_DIR)

from google.rpc import error_details_pb2, status_pb2  # noqa: E402
from toolguard.v1 import toolguard_pb2, toolguard_pb2_grpc  # noqa: E402

__all__ = ["GEN_DIR", "error_details_pb2", "status_pb2", "toolguard_pb2", "toolguard_pb2_grpc"]
