"""With BATON_BE_GATE_PEERS=1, the best-effort host gate
(baton._core.be_gate) follows latency-critical brackets of other processes
sharing the GPU, so that a best-effort process holds back even the launches
Baton does not route while another process's inference runs; and a
latency-critical process is a registered peer from enable() on, before its
first bracket. Needs a GPU; skipped, saying so, without one."""

import os
import subprocess
import sys
import time
import unittest

# The router reads it when it starts, in setUp at the latest.
os.environ["BATON_BE_GATE_PEERS"] = "1"

from baton import _core  # noqa: E402
from helpers import gpu_runtime_or_reason  # noqa: E402

# A latency-critical process: one explicit bracket of about 0.4 s.
CHILD = """
import sys, time
from baton import _core
_core.router_start()
bracket = _core.lc_begin(0)
print("open", flush=True)
time.sleep(0.4)
_core.lc_end(bracket)
print("closed", flush=True)
sys.stdin.read()
"""

# A latency-critical process that has not launched anything yet.
JOINED_CHILD = """
import sys
from baton import _core
_core.router_start()
print("joined" if _core.join_registry() else "not joined", flush=True)
sys.stdin.read()
"""


class RemoteGateTest(unittest.TestCase):
    def setUp(self):
        reason = gpu_runtime_or_reason(_core)
        if reason:
            self.skipTest(reason)
        if os.environ.get("BATON_SHARE") == "0":
            self.skipTest("BATON_SHARE=0: no registry")

    def test_gate_holds_while_another_process_is_latency_critical(self):
        self.assertFalse(_core.lc_open())
        self.assertEqual(_core.be_gate(1e6), 0.0)
        child = subprocess.Popen([sys.executable, "-c", CHILD],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 text=True)
        try:
            self.assertEqual(child.stdout.readline().strip(), "open")
            start = time.monotonic()
            self.assertTrue(_core.lc_open())
            waited_us = _core.be_gate(5e6)
            elapsed = time.monotonic() - start
            # Held until the other process closed its bracket, not to the
            # gate's own limit.
            self.assertGreater(waited_us, 250e3)
            self.assertLess(elapsed, 2.0)
            self.assertEqual(child.stdout.readline().strip(), "closed")
            self.assertFalse(_core.lc_open())
            self.assertEqual(_core.be_gate(1e6), 0.0)
        finally:
            child.stdin.close()
            child.wait(timeout=10)
        self.assertEqual(child.returncode, 0)

    def test_gate_gives_up_at_its_limit(self):
        child = subprocess.Popen([sys.executable, "-c", CHILD],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 text=True)
        try:
            self.assertEqual(child.stdout.readline().strip(), "open")
            waited_us = _core.be_gate(50e3)
            self.assertGreaterEqual(waited_us, 50e3)
            self.assertLess(waited_us, 200e3)
        finally:
            child.stdin.close()
            child.wait(timeout=10)

    def test_latency_critical_process_is_a_peer_before_its_first_bracket(self):
        self.assertFalse(_core.remote_latency_critical())
        child = subprocess.Popen([sys.executable, "-c", JOINED_CHILD],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 text=True)
        try:
            self.assertEqual(child.stdout.readline().strip(), "joined")
            self.assertTrue(_core.remote_latency_critical())
            self.assertFalse(_core.lc_open())  # registered, no work announced
        finally:
            child.stdin.close()
            child.wait(timeout=10)
        self.assertEqual(child.returncode, 0)


if __name__ == "__main__":
    unittest.main()
