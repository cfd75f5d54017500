"""The best-effort host gate (baton._core.be_gate) holds best-effort threads
back while a latency-critical bracket of the process is open, but not past
the bracket's lease (BATON_SHARE_LEASE_MS): after it, the scheduler no
longer holds best-effort work back for that bracket, and the gate does not
either. Needs a GPU; skipped, saying so, without one."""

import json
import os
import subprocess
import sys
import unittest

from baton import _core

from helpers import gpu_runtime_or_reason

# A process of its own: the lease is read when the router starts, and the
# registry (BATON_SHARE=0 here) would hold the gate for its own clock.
CHILD = """
import json, time
from baton import _core
_core.router_start()
out = {}
bracket = _core.lc_begin(0)
out["open"] = _core.lc_open()
out["within_lease_us"] = _core.be_gate(50e3)
start = time.monotonic()
out["to_lease_end_us"] = _core.be_gate(5e6)
out["to_lease_end_s"] = time.monotonic() - start
start = time.monotonic()
out["past_lease_us"] = _core.be_gate(5e6)
out["past_lease_s"] = time.monotonic() - start
_core.lc_end(bracket)
out["open_after_end"] = _core.lc_open()
print(json.dumps(out))
"""

LEASE_MS = 300


class GateLeaseTest(unittest.TestCase):
    def setUp(self):
        reason = gpu_runtime_or_reason(_core)
        if reason:
            self.skipTest(reason)

    def test_an_explicit_bracket_holds_the_gate_until_its_lease_ends(self):
        env = dict(os.environ, BATON_SHARE="0",
                   BATON_SHARE_LEASE_MS=str(LEASE_MS))
        env.pop("BATON_BE_GATE_PEERS", None)
        child = subprocess.run([sys.executable, "-c", CHILD], env=env,
                               capture_output=True, text=True, timeout=60)
        self.assertEqual(child.returncode, 0, child.stderr)
        out = json.loads(child.stdout.strip().splitlines()[-1])
        self.assertTrue(out["open"])
        # Within the lease the gate holds to its own limit.
        self.assertGreaterEqual(out["within_lease_us"], 50e3)
        # Asked for longer, it holds until the lease ends, not to its limit.
        self.assertGreater(out["to_lease_end_us"], (LEASE_MS - 100) * 1e3)
        self.assertLess(out["to_lease_end_s"], LEASE_MS / 1e3 + 0.2)
        # Past the lease, the bracket still open holds nothing back.
        self.assertLess(out["past_lease_s"], 0.02)
        self.assertFalse(out["open_after_end"])


if __name__ == "__main__":
    unittest.main()
