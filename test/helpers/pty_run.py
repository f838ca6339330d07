"""Runs a command in a pseudo-terminal of a fixed size, answers its prompts, and reports what it drew.

Input (JSON on stdin): {"argv": [...], "env": {...}, "cols": 160, "rows": 50,
  "steps": [{"expect": "regex", "send": "text", "signal": "TERM", "modes": true}, ...], "timeout": 20}
Each step waits until the output written since the previous step matches `expect`, then types `send`
and sends the command the signal, when given; with "modes", it first notes the terminal's modes
(whether it makes signals of keys, reads lines, echoes). cols and rows 0 make a terminal that reports no size.
Output (JSON on stdout): {"output": "everything the command wrote", "code": exit status or null,
  "modes": [the modes noted at each such step], "after": the modes once the command has exited}
"""
import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import time

spec = json.load(sys.stdin)
deadline = time.time() + spec.get("timeout", 20)
size = struct.pack("HHHH", spec.get("rows", 50), spec.get("cols", 160), 0, 0)
pid, fd = pty.fork()
if pid == 0:
    # The size is set on the terminal before the command starts, so it never reads another.
    fcntl.ioctl(0, termios.TIOCSWINSZ, size)
    os.execvpe(spec["argv"][0], spec["argv"], spec["env"])

fcntl.ioctl(fd, termios.TIOCSWINSZ, size)
output = b""
mark = 0
modes = []


def terminal_modes():
    """The terminal's local modes, as `stty` shows them: isig, icanon, echo."""
    try:
        lflag = termios.tcgetattr(fd)[3]
    except termios.error:
        return None
    return {"isig": bool(lflag & termios.ISIG), "icanon": bool(lflag & termios.ICANON), "echo": bool(lflag & termios.ECHO)}


def pump(wait):
    global output
    ready, _, _ = select.select([fd], [], [], wait)
    if not ready:
        return True
    try:
        chunk = os.read(fd, 65536)
    except OSError:
        return False
    if not chunk:
        return False
    output += chunk
    return True


alive = True
for step in spec.get("steps", []):
    pattern = re.compile(step["expect"])
    while alive and not pattern.search(output[mark:].decode("utf8", "replace")):
        if time.time() > deadline:
            break
        alive = pump(0.05)
    mark = len(output)
    if step.get("modes"):
        modes.append(terminal_modes())
    if alive and "send" in step:
        os.write(fd, step["send"].encode())
    if alive and "signal" in step:
        os.kill(pid, getattr(signal, "SIG" + step["signal"]))

# Drain until the terminal closes (the command exited) or time runs out.
while alive and time.time() < deadline:
    alive = pump(0.1)

code = None
while time.time() < deadline + 2:
    finished, status = os.waitpid(pid, os.WNOHANG)
    if finished:
        code = os.waitstatus_to_exitcode(status)
        break
    time.sleep(0.05)
else:
    os.kill(pid, 9)
    os.waitpid(pid, 0)
after = terminal_modes()
json.dump({"output": output.decode("utf8", "replace"), "code": code, "modes": modes, "after": after}, sys.stdout)
