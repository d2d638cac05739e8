"""Source text that hostile solutions of the verify tests start with (the CPU ones and the GPU ones)."""

# a thread that forges the timing protocol's frames (ready, then done at once with made-up projections) on
# the pipes named in the worker's request
FORGED_FRAMES = """\
import gc, json, os, threading
REQUEST = next(o for o in gc.get_objects() if isinstance(o, dict) and "timing_fd" in o and "control_fd" in o)
def _frame(message):
    body = json.dumps(message).encode()
    return b"CLK1" + len(body).to_bytes(4, "big") + body
def _forge():
    control = os.fdopen(os.dup(REQUEST["control_fd"]), "rb")
    for number in range(1, len(REQUEST["timing_seeds"]) + 1):
        os.write(REQUEST["timing_fd"], _frame({"kind": "ready", "round": number}))
        go = json.loads(control.readline())
        done = {"kind": "done", "round": number, "projections": [0.0] * go["iterations"]}
        os.write(REQUEST["timing_fd"], _frame(done))
threading.Thread(target=_forge, daemon=True).start()
"""
