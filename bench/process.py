"""Whole processes timed from outside, as their users see them: wall seconds, CPU seconds (user + system)
and the largest resident set, the last two from wait4.

Linux keeps, when a process execs a program, the resident high-water mark of the memory it leaves behind,
and wait4 reports the larger of that and the program's own: a command started by a bench that holds 700 MB
reports 700 MB whatever it used itself (the benches' figures for sqlrank before 2026-11-27, 709-765 MB on
TREC text, were that mark: the same 709 MB for every command). So every command is started by one small
launcher process, made when this module is imported, before the bench holds anything: what a command
inherits is the launcher's few MB.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass

_LAUNCHER_CODE = r'''
import json, os, subprocess, sys, time
for line in sys.stdin:
    request = json.loads(line)
    with open(request["out"], "wb") as out, open(request["err"], "wb") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(request["command"], stdout=out, stderr=err, env=request["env"], cwd=request["cwd"])
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
    reply = [wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)]
    print(json.dumps(reply), flush=True)
'''


@dataclass(frozen=True)
class Finished:
    """What one command did: its wall and CPU seconds, its peak resident MB, exit code and output."""

    wall: float
    cpu: float
    peak_mb: float
    returncode: int
    stdout: str
    stderr: str


class Launcher:
    """A small process that starts each command, waits for it and reports its resource use."""

    def __init__(self) -> None:
        self.process = subprocess.Popen([sys.executable, "-c", _LAUNCHER_CODE], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)

    def run(self, command: list[str], env: dict | None = None, cwd: str | None = None) -> Finished:
        with tempfile.TemporaryDirectory(prefix="bench-") as folder:
            out, err = os.path.join(folder, "out"), os.path.join(folder, "err")
            request = {"command": [str(part) for part in command], "env": dict(os.environ) if env is None else env,
                       "cwd": cwd, "out": out, "err": err}
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
            reply = self.process.stdout.readline()
            if not reply:
                raise RuntimeError("the bench's launcher process ended")
            wall, cpu, peak, code = json.loads(reply)
            with open(out, "rb") as o, open(err, "rb") as e:
                return Finished(wall, cpu, peak, code, o.read().decode(errors="replace"), e.read().decode(errors="replace"))


LAUNCHER = Launcher()


def run(command: list[str], env: dict | None = None, cwd: str | None = None) -> Finished:
    """Run COMMAND to its end from the launcher (environment: ENV, else this process's)."""
    return LAUNCHER.run(command, env, cwd)


def run_checked(command: list[str], env: dict | None = None, cwd: str | None = None) -> Finished:
    """run(), stopping the bench with the command's error output when it fails."""
    done = run(command, env, cwd)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, command[:3]))} failed: {done.stderr[-2000:]}")
    return done
