#!/usr/bin/env python3
"""Thirty-second session: check_training.py's gpt-dyn preempted phase (the
phase that gave no result for five minutes in the thirty-first session's
call j), many times in one process: compile and reference once, then ROUNDS
routed runs under a storm of brackets, each against the reference, bit for
bit. A round that takes longer than 60 s dumps every thread's stack and
exits 1 (faulthandler)."""
import faulthandler
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../../../bench/torch"))
from check_training import Storm, run_steps  # noqa: E402  (sets the env)
import torch  # noqa: E402
import baton.torch  # noqa: E402
import baton.triton  # noqa: E402
from baton import _core  # noqa: E402
import workloads  # noqa: E402

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 40
workloads.deterministic()
os.environ["BATON_SHARE"] = "0"
baton.torch.enable("best-effort", schedule="never", attention="triton")
model, opt = workloads.build("gpt", "check")
state = {k: v.clone() for k, v in model.state_dict().items()}
compiled = torch.compile(model, dynamic=True)
step = workloads.make_step(compiled, opt)
data = workloads.batches("gpt", "check", 4)


def reset():
    model.load_state_dict(state)
    opt.state.clear()
    opt.zero_grad(set_to_none=True)


reset()
run_steps(step, data, 1)
reset()
since = time.monotonic()
reference = run_steps(step, data, 12)
print("variants ready:", baton.triton.prepare_loaded(
    wait=True, timeout=120, launched_since=since), flush=True)
t0 = time.time()
for i in range(ROUNDS):
    faulthandler.dump_traceback_later(60, exit=True)
    reset()
    baton.torch.set_schedule("always")
    before = _core.stats()
    start = time.time()
    with Storm() as storm:
        losses = run_steps(step, data, 12)
    after = _core.stats()
    baton.torch.set_schedule("never")
    faulthandler.cancel_dump_traceback_later()
    same = torch.equal(losses, reference)
    print(f"round {i}: {'==' if same else '!='} reference, "
          f"{time.time() - start:.2f} s, pauses {after['pauses'] - before['pauses']}, "
          f"brackets {storm.brackets}", flush=True)
    if not same:
        sys.exit(1)
print(f"{ROUNDS} rounds in {time.time() - t0:.0f} s", flush=True)
