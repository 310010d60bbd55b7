#!/usr/bin/python3
"""Runs every example launch line of every element's documentation.

An example is a |[ ... ]| block of a SECTION:element-* comment in
elements/*.c whose first line is a command (gst-launch-1.0, or cat to join
files).  The examples of one element run in the order printed, as a user
following the page would, in one fresh folder (an example may read the
files an earlier one wrote), each command under a time limit; any exit
status but 0 fails the example.  Usage: examples.py SOURCE_ROOT
"""
import os
import pathlib
import re
import subprocess
import sys
import tempfile

TIMEOUT = 60
COMMANDS = ("gst-launch-1.0 ", "cat ")


def blocks(path):
    """The launch-line blocks of one source file: (line number, [commands])."""
    text = path.read_text()
    for m in re.finditer(r"\|\[\n(.*?)\]\|", text, re.S):
        lines = [re.sub(r"^\s*\* ?", "", l) for l in m.group(1).splitlines()]
        lines = [l for l in lines if l.strip()]
        if not lines or not lines[0].startswith(COMMANDS):
            continue
        cmds, cur = [], ""
        for l in lines:
            cur += l.rstrip("\\").rstrip() + " " if l.endswith("\\") else l
            if not l.endswith("\\"):
                cmds.append(cur.strip())
                cur = ""
        yield text.count("\n", 0, m.start()) + 1, cmds


def run_block(where, cmds, tmp):
    """Runs one example's commands in tmp; False (and why) on a failure."""
    for cmd in cmds:
        if "..." in cmd:
            print(f"FAIL {where}: not runnable as printed: {cmd}")
            return False
        # -q: the output is not checked here, only that it runs; the
        # element suites check the values.
        run = cmd.replace("gst-launch-1.0 ", "gst-launch-1.0 -q ", 1)
        env = dict(os.environ)
        if env.get("TN_EXAMPLES_PRELOAD"):
            env["LD_PRELOAD"] = env["TN_EXAMPLES_PRELOAD"]
        try:
            r = subprocess.run(["bash", "-c", run], cwd=tmp, env=env,
                               stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, timeout=TIMEOUT,
                               text=True)
            ok, why = r.returncode == 0, r.stderr.strip()[-600:]
        except subprocess.TimeoutExpired:
            ok, why = False, f"still running after {TIMEOUT} s"
        if not ok:
            print(f"FAIL {where}: {cmd}\n  {why}")
            return False
    return True


def main():
    root = pathlib.Path(sys.argv[1])
    passed = failed = 0
    for src in sorted((root / "elements").glob("*.c")):
        with tempfile.TemporaryDirectory() as tmp:
            for line, cmds in blocks(src):
                where = f"{src.name}:{line}"
                if run_block(where, cmds, tmp):
                    print(f"ok   {where}: {len(cmds)} line(s)")
                    passed += 1
                else:
                    failed += 1
    print(f"examples: {passed} passed, {failed} failed")
    if passed == 0:
        print("no example found: the parser or the sources changed")
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
