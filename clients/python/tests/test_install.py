"""Installs the package as a user would (pip, offline, Debian's setuptools)
into a scratch folder and runs a short script with it against a real server.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile
from pathlib import Path

import test_client as tc

import toolguard_client

SCRIPT = """
import toolguard_client, sys
from toolguard_client import ToolGuardClient
assert toolguard_client.__file__.startswith(sys.argv[2]), toolguard_client.__file__
with ToolGuardClient(sys.argv[1], session_id="installed") as tg:
    v = tg.validate("Write", "{'file_path': 'a.py', 'text': 'x = 1'}")
    assert v.ok and v.tool_name == "write_to_file", v
    w = tg.write("write_to_file", '{"path": "a.py", "content": "x = 1\\\\n"}')
    assert w.verdict.ok, w
print("installed client ok")
"""


def setUpModule() -> None:
    if not tc._server_bin or not os.path.exists(tc._server_bin):
        tc.setUpModule()


def tearDownModule() -> None:
    tc.tearDownModule()


class InstallTest(unittest.TestCase):
    def test_pip_install_and_use(self) -> None:
        with tempfile.TemporaryDirectory(prefix="toolguard-install-") as tmp:
            # Build from a copy, so the checkout gets no build/ or egg-info.
            src = Path(tmp) / "src"
            shutil.copytree(tc.CLIENT_ROOT, src, ignore=shutil.ignore_patterns("tests", "__pycache__", "build", "*.egg-info"))
            target = Path(tmp) / "site"
            subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--root-user-action=ignore", "--no-build-isolation", "--no-index",
                            "--no-deps", "--target", str(target), str(src)], check=True, cwd=tmp)
            self.assertTrue((target / "toolguard_client" / "py.typed").exists())
            self.assertTrue((target / "toolguard_client" / "_gen" / "toolguard" / "v1" / "toolguard_pb2.pyi").exists())
            server = tc.Server(tc._server_bin)
            try:
                env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
                env["PYTHONPATH"] = str(target)
                out = subprocess.run([sys.executable, "-c", SCRIPT, server.address, str(target)], env=env, cwd=tmp,
                                     capture_output=True, text=True, timeout=60)
                self.assertEqual(out.returncode, 0, out.stderr)
                self.assertIn("installed client ok", out.stdout)
                self.assertEqual((server.workspace / "a.py").read_text(), "x = 1\n")
            finally:
                server.stop()

    def test_wheel_offline(self) -> None:
        """The wheel builds offline with Debian's python3-setuptools and
        python3-wheel, and carries LICENSE, the version and the Pythons the
        client supports."""
        with tempfile.TemporaryDirectory(prefix="toolguard-wheel-") as tmp:
            src = Path(tmp) / "src"
            shutil.copytree(tc.CLIENT_ROOT, src, ignore=shutil.ignore_patterns("tests", "__pycache__", "build", "*.egg-info"))
            out = Path(tmp) / "dist"
            subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-build-isolation", "--no-index", "--no-deps",
                            "--wheel-dir", str(out), str(src)], check=True, cwd=tmp)
            wheels = list(out.glob("toolguard_client-*.whl"))
            self.assertEqual(len(wheels), 1, wheels)
            with zipfile.ZipFile(wheels[0]) as whl:
                names = whl.namelist()
                info = f"toolguard_client-{toolguard_client.__version__}.dist-info"
                self.assertIn(f"{info}/LICENSE", names)
                self.assertEqual(whl.read(f"{info}/LICENSE"), (tc.REPO_ROOT / "LICENSE").read_bytes())
                metadata = whl.read(f"{info}/METADATA").decode()
            self.assertIn(f"Version: {toolguard_client.__version__}\n", metadata)
            self.assertIn("Requires-Python: >=3.11\n", metadata)


if __name__ == "__main__":
    unittest.main()
