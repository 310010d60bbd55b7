#!/usr/bin/python3
"""Table-driven matrix harness: runs gst-launch-1.0 (or gstpy.py) command
lines from the tables beside it and checks each case's expected outcome.

    harness.py [--jobs 2] [--timeout 20] [--filter SUBSTR] [--keep DIR]
               [--list] TABLE.py ...

A table is a Python literal (ast.literal_eval, no code) holding a dict:

  'files':   {NAME: EXPR}   built once in the work directory before any
             case runs; EXPR is evaluated with the helpers below (np, npy,
             npy_raw, raw, fortran, mkdir) and yields bytes, an ndarray
             (saved with np.save) or the result of mkdir().
  'cases':   [CASE, ...]
  'product': [{'axes': [[AXIS-ENTRY, ...], ...], 'case': TEMPLATE}, ...]
             every combination of one entry per axis: the entries' fields
             are merged (later axes win) over the product's 'defaults'
             (whose strings are formatted with the merged fields), and each
             string of TEMPLATE is str.format()ed with them, 'id' of axis i
             as {id0}, {id1}...; a string that is one {field} naming a list
             is that list (spliced into a list it is an item of).
             An entry whose 'skip' names the id of an entry of another
             axis is not combined with it.

A CASE:
  name     unique name, printed on its line
  launch   the gst-launch-1.0 arguments, a shell-quoted string; or
  py       a pipeline for gstpy.py, with 'pyargs' (a list) after it
  then     a second gst-launch-1.0 line run after the first succeeds
  expect   'error'  : exit code not 0, and every word of 'words' occurs in
                      the ERROR lines (not in the debug details);
           'ok'     : exit code 0, and the bytes collected equal the dense
                      C-order bytes of the NumPy expression 'array'; and
                      'check' (an expression over out, text, props), if any,
                      is true;
           'clean'  : exit code 0 and 'check', if any, true;
           'handled': either a clear error as for 'error', or 'clean'
                      (with the bytes of 'array', if given);
  collect  'file' (@OUT@, the default for 'ok') or 'multifile' (@OUT@.*
           concatenated in name order)
  interrupt  seconds after which SIGINT is sent (gst-launch-1.0 then sets
           the pipeline to NULL): the case checks that it can be stopped

A process that printed an ERROR line and has not exited 5 s later is
killed: gst-launch-1.0 1.22 itself does not always exit after an error
while prerolling (see run_cmd).  The case counts as the error it printed,
and the totals say how many stalled so.
  needs    element factories that must exist, else the case is skipped
  timeout  seconds, instead of --timeout
  issue    where the expectation comes from, printed on a failure

  batch    cases of one table with the same batch key run in one process,
           their pipelines side by side (gst-launch-1.0 runs unconnected
           chains as one pipeline): it saves the start-up of a process per
           case, so only for cases expected to succeed

In command lines @DIR@ is the work directory, @OUT@ the case's output
file, @SINK@ a name for its appsink (gstpy.py writes what appsink NAME
receives to OUT-DIR/NAME, which is @OUT@), @V@ a name for the element
whose properties the case reads, @PY@ this interpreter, @GSTPY@ gstpy.py.
TN_MATRIX_PRELOAD, when set, is put in LD_PRELOAD of the processes the
harness starts (a sanitizer runtime for the uninstrumented gst-launch-1.0),
not of the harness itself.

Whatever the expectation, a signal, a sanitizer report or a GLib critical
(G_DEBUG=fatal-criticals is set) is a crash and a timeout a hang.  One line
per case, then the totals; the exit code is 1 when any case's outcome is
not its expectation.
"""
import argparse
import ast
import concurrent.futures
import glob
import itertools
import os
import re
import shlex
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
GSTPY = os.path.join(HERE, "gstpy.py")


# ---- helpers the 'files' expressions use ---------------------------------

def npy(arr):
    """The .npy bytes NumPy writes for arr (C or Fortran order as it is)."""
    import io
    b = io.BytesIO()
    np.save(b, arr, allow_pickle=False)
    return b.getvalue()


def fortran(arr):
    return np.asfortranarray(arr)


def npy_raw(header, data=b"", magic=b"\x93NUMPY", version=(1, 0),
            pad_to=64, hlen=None):
    """A .npy with a hand-written header dict text (possibly hostile):
    header padded with spaces and a newline to a multiple of pad_to, or
    of length hlen exactly when given (which may lie)."""
    h = header.encode("latin1")
    pre = len(magic) + 2 + (2 if version[0] == 1 else 4)
    if pad_to:
        total = -(-(pre + len(h) + 1) // pad_to) * pad_to
        h = h + b" " * (total - pre - len(h) - 1) + b"\n"
    n = len(h) if hlen is None else hlen
    size = struct.pack("<H", n) if version[0] == 1 else struct.pack("<I", n)
    return magic + bytes(version) + size + h + data


def raw(arr):
    return np.ascontiguousarray(arr).tobytes()


class _Dir:
    pass


def mkdir():
    return _Dir()


HELPERS = {"np": np, "npy": npy, "npy_raw": npy_raw, "raw": raw,
           "fortran": fortran, "mkdir": mkdir}


# ---- tables ---------------------------------------------------------------

def expand(table):
    cases = list(table.get("cases", []))
    for prod in table.get("product", []):
        for combo in itertools.product(*prod["axes"]):
            ids = [e.get("id", "") for e in combo]
            if any(e.get("skip") and set(e["skip"]) & set(ids) for e in combo):
                continue
            defaults = prod.get("defaults", {})
            fields = dict(defaults)
            for i, e in enumerate(combo):
                fields.update(e)
                fields["id%d" % i] = e.get("id", "")
            for k, v in defaults.items():
                if fields[k] is v:
                    fields[k] = _fill(v, fields)
            case = {k: v for k, v in fields.items()
                    if k not in ("id", "skip") and not re.match(r"id\d+$", k)}
            case.update(prod["case"])
            cases.append({k: _fill(v, fields) for k, v in case.items()})
    names = [c["name"] for c in cases]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        sys.exit("duplicate case names: %s" % ", ".join(sorted(dup)))
    return cases


def _fill(v, fields):
    """v with {field}s replaced; a string that is one {field} whose value is
    a list becomes that list, spliced in when it is an item of a list."""
    if isinstance(v, str):
        m = re.match(r"\{(\w+)\}$", v)
        if m and not isinstance(fields.get(m.group(1)), str):
            return fields[m.group(1)]
        return v.format(**fields)
    if isinstance(v, list):
        out = []
        for x in v:
            y = _fill(x, fields)
            out += y if isinstance(y, list) and not isinstance(x, list) else [y]
        return out
    return v


def build_files(table, workdir):
    for name, expr in table.get("files", {}).items():
        path = os.path.join(workdir, name)
        val = eval(expr, dict(HELPERS))  # table text of this repository
        if isinstance(val, _Dir):
            os.makedirs(path, exist_ok=True)
        elif isinstance(val, np.ndarray):
            with open(path, "wb") as f:
                f.write(npy(val))
        else:
            with open(path, "wb") as f:
                f.write(bytes(val))


# ---- running one case -----------------------------------------------------

CRASH_RE = re.compile(r"LeakSanitizer has encountered a fatal error|"
                      r"ERROR: AddressSanitizer|ERROR: LeakSanitizer|"
                      r"runtime error:|"
                      r"CRITICAL \*\*|Segmentation fault|"
                      r"Caught SIGSEGV|\*\*\* glibc detected")
ERROR_LINE_RE = re.compile(r"^(ERROR|WARNING: erroneous pipeline)", re.M)


def sname(case):
    """The case's name as an element name and a file name."""
    return re.sub(r"[^A-Za-z0-9_]", "_", case["name"])


def subst(s, workdir, case):
    out = os.path.join(workdir, "out", sname(case))
    return (s.replace("@DIR@", workdir).replace("@OUT@", out)
            .replace("@SINK@", sname(case)).replace("@V@", sname(case) + "_v")
            .replace("@PY@", sys.executable).replace("@GSTPY@", GSTPY))


STALL_GRACE = 5.0


def run_cmd(argv, env, timeout, interrupt=None):
    """(rc, text, seconds): rc None when there was no exit within timeout,
    "stalled" when an ERROR line was printed and there was no exit within
    STALL_GRACE seconds after it.  gst-launch-1.0 1.22 itself does not
    always exit after an error while prerolling once the sink has
    prerolled on the EOS that follows (jpegdec on junk does the same, about
    one run in two), so such a run is killed early and told apart."""
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL, env=env,
                         start_new_session=True)
    lines = []
    first_error = []

    def read():
        for raw in iter(p.stdout.readline, b""):
            line = raw.decode("utf-8", "replace")
            if not first_error and ERROR_LINE_RE.match(line):
                first_error.append(time.monotonic())
            lines.append(line)

    reader = threading.Thread(target=read)
    reader.start()
    rc = None
    interrupted = interrupt is None
    while True:
        try:
            rc = p.wait(0.1)
            break
        except subprocess.TimeoutExpired:
            pass
        now = time.monotonic()
        if not interrupted and now - t0 >= interrupt:
            os.killpg(p.pid, signal.SIGINT)
            interrupted = True
        if first_error and now - first_error[0] > STALL_GRACE:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            rc = "stalled"
            break
        if now - t0 > timeout:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            break
    reader.join()
    return rc, "".join(lines), time.monotonic() - t0


def error_lines(text):
    return "\n".join(l for l in text.splitlines() if ERROR_LINE_RE.match(l))


def collect(case, workdir):
    out = os.path.join(workdir, "out", sname(case))
    how = case.get("collect", "file")
    if how == "multifile":
        parts = sorted(glob.glob(glob.escape(out) + ".*"))
        return b"".join(open(p, "rb").read() for p in parts)
    if not os.path.exists(out):
        return None
    return open(out, "rb").read()


def run_batch(cases, workdir, timeout, env):
    """Runs cases (one, or several of one batch whose pipelines are put
    side by side in one process) and judges each: a list of
    (outcome, detail, seconds, text)."""
    for c in cases:
        for p in glob.glob(glob.escape(os.path.join(workdir, "out",
                                                    sname(c))) + "*"):
            os.remove(p)
    first = cases[0]
    timeout = first.get("timeout", timeout)
    # the process runs under the sanitizer runtime; this script does not
    cenv = dict(env)
    if env.get("TN_MATRIX_PRELOAD"):
        cenv["LD_PRELOAD"] = env["TN_MATRIX_PRELOAD"]
        # an allocation too large must fail as malloc fails in a release
        # build (NULL), for the element to report it
        # intercept_tls_get_addr=0: with glibc 2.36, LSan's tracer can
        # fault on a stale dynamic-TLS record at exit ("Tracer caught
        # signal 11", "LeakSanitizer has encountered a fatal error"),
        # depending on MALLOC_PERTURB_: a sanitizer fault, not ours
        cenv["ASAN_OPTIONS"] = (cenv.get("ASAN_OPTIONS", "")
                                + ":allocator_may_return_null=1"
                                + ":intercept_tls_get_addr=0")
    if "py" in first:
        argv = [sys.executable, GSTPY,
                " ".join(subst(c["py"], workdir, c) for c in cases),
                "--out-dir", os.path.join(workdir, "out")]
        for c in cases:
            argv += [subst(a, workdir, c) for a in c.get("pyargs", [])]
        # the interpreter's own allocations are not ours to check
        cenv["ASAN_OPTIONS"] = cenv.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
    else:
        argv = ["gst-launch-1.0", "-q"]
        for c in cases:
            argv += shlex.split(subst(c["launch"], workdir, c))
    rc, text, secs = run_cmd(argv, cenv, timeout, first.get("interrupt"))
    thens = [c for c in cases if "then" in c]
    if rc == 0 and thens:
        argv = ["gst-launch-1.0", "-q"]
        for c in thens:
            argv += shlex.split(subst(c["then"], workdir, c))
        rc, text2, s2 = run_cmd(argv, cenv, timeout)
        text += text2
        secs += s2
    return [judge(c, rc, text, secs, workdir, timeout) + (text,)
            for c in cases]


def judge(case, rc, text, secs, workdir, timeout):
    if rc is None:
        return "hang", "no exit within %g s" % timeout, secs
    stalled = rc == "stalled"
    if stalled:
        rc = 1
    m = CRASH_RE.search(text)
    if rc < 0 or m:
        why = m.group(0) if m else "signal %d" % -rc
        return "crash", why, secs
    expect = case["expect"]
    errs = error_lines(text)
    if rc != 0:
        missing = [w for w in case.get("words", []) if w not in errs]
        if expect in ("error", "handled") and not missing:
            return ("clear-error",
                    "stalled after the error: killed %g s after it"
                    % STALL_GRACE if stalled else "", secs)
        if expect in ("error", "handled"):
            return ("unclear-error", "missing %s in: %s"
                    % (missing, errs.replace("\n", " | ")[:300]), secs)
        return "unexpected-error", errs.replace("\n", " | ")[:300], secs
    if expect == "error":
        return "accepted", "exit 0 where an error was expected", secs
    props = dict(re.findall(r"^PROP (\S+?)=(.*)$", text, re.M))
    props = {k: _num(v) for k, v in props.items()}
    compare = expect == "ok" or (expect == "handled" and "array" in case)
    data = collect(case, workdir) if compare or "collect" in case else None
    if compare:
        want = eval(case["array"], dict(HELPERS))
        want = np.ascontiguousarray(want).tobytes()
        if data is None:
            return "wrong-output", "no output file", secs
        if data != want:
            return ("wrong-output", "%d bytes, %s; expected %d bytes, %s"
                    % (len(data), data[:24].hex(), len(want), want[:24].hex()),
                    secs)
    if "check" in case:
        ok = eval(subst(case["check"], workdir, case),
                  dict(HELPERS, out=data, text=text, props=props))
        if not ok:
            return ("wrong-output", "check failed: %s; props %s"
                    % (case["check"], props), secs)
    return "correct", "", secs


def excerpt(text, n=12):
    """The lines of text from the first crash report or error on, without
    the deep stack frames."""
    lines = text.splitlines()
    start = 0
    for i, l in enumerate(lines):
        if CRASH_RE.search(l) or ERROR_LINE_RE.match(l) or "caught signal" in l:
            start = i
            break
    keep = [l for l in lines[start:]
            if not re.match(r"\s+#([4-9]|\d\d+) ", l)]
    return keep[:n]


def _num(v):
    try:
        return int(v)
    except ValueError:
        return v


OUTCOMES = ["clear-error", "correct", "crash", "hang", "wrong-output",
            "accepted", "unclear-error", "unexpected-error", "skipped"]


def passed(case, outcome):
    e = case["expect"]
    if outcome == "skipped":
        # scripts/deps.sh installs every element a case needs: a missing
        # one is a broken set-up, not a case to pass over.
        return False
    if e == "error":
        return outcome == "clear-error"
    if e == "handled":
        return outcome in ("clear-error", "correct")
    return outcome == "correct"


def have_factory(name, env, cache={}):
    if name not in cache:
        # not --exists: it also compares versions with GStreamer's own
        r = subprocess.run(["gst-inspect-1.0", name], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        cache[name] = r.returncode == 0
    return cache[name]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("tables", nargs="+")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=20)
    ap.add_argument("--filter", default="")
    ap.add_argument("--keep", help="work directory to use and keep")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--verbose", action="store_true",
                    help="print the output of every failing case")
    a = ap.parse_args()

    env = dict(os.environ)
    env["G_DEBUG"] = "fatal-criticals"
    env.setdefault("GST_DEBUG_NO_COLOR", "1")
    if a.keep:
        workdir = os.path.abspath(a.keep)
        os.makedirs(workdir, exist_ok=True)
    else:
        workdir = tempfile.mkdtemp(prefix="tn-matrix-")
    os.makedirs(os.path.join(workdir, "out"), exist_ok=True)

    jobs = []
    for t in a.tables:
        table = ast.literal_eval(open(t).read())
        build_files(table, workdir)
        group = os.path.splitext(os.path.basename(t))[0]
        for c in expand(table):
            if a.filter in c["name"]:
                jobs.append((group, c))
    if a.list:
        for g, c in jobs:
            print(g, c["name"], c["expect"], c.get("launch", c.get("py")))
        return 0

    totals = {k: 0 for k in OUTCOMES + ["stalled"]}
    failed = []
    lock = threading.Lock()
    t0 = time.monotonic()

    def one(batch):
        group, cases = batch
        miss = sorted({n for c in cases for n in c.get("needs", [])
                       if not have_factory(n, env)})
        if miss:
            res = [("skipped", "no element %s" % ", ".join(miss), 0.0, "")
                   for c in cases]
        else:
            res = run_batch(cases, workdir, a.timeout, env)
        with lock:
            for case, (outcome, detail, secs, text) in zip(cases, res):
                ok = passed(case, outcome)
                totals[outcome] += 1
                if detail.startswith("stalled"):
                    totals["stalled"] += 1
                mark = "ok  " if ok else "FAIL"
                line = "%s %-9s %-52s %-16s %5.1fs" % (
                    mark, group, case["name"], outcome, secs)
                if not ok or outcome == "skipped" or detail:
                    line += "  " + detail
                    if case.get("issue"):
                        line += "  [%s]" % case["issue"]
                if not ok and outcome in ("crash", "unexpected-error"):
                    line += "".join("\n     | " + l for l in excerpt(text))
                print(line, flush=True)
                if not ok:
                    failed.append((group, case, outcome, text))

    batches, index = [], {}
    for group, case in jobs:
        key = case.get("batch")
        if key is None:
            batches.append((group, [case]))
        elif (group, key) in index:
            batches[index[group, key]][1].append(case)
        else:
            index[group, key] = len(batches)
            batches.append((group, [case]))
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        list(ex.map(one, batches))

    if a.verbose:
        for group, case, outcome, text in failed:
            print("----- %s %s (%s)\n%s" % (group, case["name"], outcome,
                                           case.get("launch", case.get("py"))))
            print(text[-2000:])
    n = len(jobs)
    print("totals: %d cases, %d clear errors, %d correct outputs, %d crashes, "
          "%d hangs, %d wrong outputs, %d accepted bad input, "
          "%d unclear errors, %d unexpected errors, %d skipped; "
          "%d not as expected; %d clear errors after which gst-launch-1.0 "
          "stalled; %.0f s"
          % (n, totals["clear-error"], totals["correct"], totals["crash"],
             totals["hang"], totals["wrong-output"], totals["accepted"],
             totals["unclear-error"], totals["unexpected-error"],
             totals["skipped"], len(failed), totals["stalled"],
             time.monotonic() - t0))
    if not a.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
