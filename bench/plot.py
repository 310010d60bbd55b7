#!/usr/bin/python3
"""Plots the ratios of one bench/run.sh run against their peers.

    bench/plot.py RESULTS [OUT]

RESULTS is the text bench/run.sh keeps in build-bench/bench-results.txt
(the benches' own output, one "## bench_NAME" line before each).  OUT
(default: RESULTS with .svg) gets one horizontal bar per figure; beside it
goes RESULTS with .json, every figure parsed.

The benches print ratios both ways: some are times (ours / peer, lower is
better), some speeds (ours / peer, higher is better).  The plot turns
every one into time ours / time peer, so below 1.0 ours is faster, on a
log scale with a line at 1.0.  Figures with no peer doing the same work
(int8 GEMM, n-threads speed-ups, tensorsrc of 1M items against a fakesrc
that never writes its buffers, tensormatmul streaming 64 MiB of weights
against identity) go into the JSON with "plot": false.
"""
import json
import os
import re
import sys

NUM = r"([0-9]+(?:\.[0-9]+)?)"


def rec(out, bench, case, peer, ours, theirs, ratio, kind, plot=True):
    """kind 'time': ratio = our time / peer time; 'speed': our speed / peer
    speed.  time_ratio is always our time / peer time."""
    ratio = float(ratio)
    tr = ratio if kind == "time" else (1.0 / ratio if ratio else None)
    out.append({"bench": bench, "case": case, "peer": peer, "ours": ours,
                "peer_figure": theirs, "ratio": ratio, "ratio_kind": kind,
                "time_ratio": tr, "plot": plot and tr is not None})


def size_name(n):
    n = int(n)
    for unit, s in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= s and n % s == 0:
            return "%d %s" % (n // s, unit)
    return "%d B" % n


def parse_alloc(lines, out):
    for l in lines:
        f = l.split()
        if len(f) == 8 and f[0].isdigit():
            rec(out, "alloc", "acquire+release %s" % size_name(f[0]),
                "GStreamer sysmem", f[2] + " ns", f[4] + " ns", f[7], "speed")


def parse_ewise(lines, out):
    for i, l in enumerate(lines):
        m = re.match(r"add:1 float32 in place, (\d+)M items", l)
        if m and i + 2 < len(lines):
            n = m.group(1) + "M"
            g = re.search(r"tensorop %s GB/s.*STREAM loop %s GB/s" % (NUM, NUM),
                          lines[i + 1])
            r = re.search(r"tensorop/STREAM %s" % NUM, lines[i + 2])
            if g and r:
                rec(out, "ewise", "add:1 float32 in place, " + n,
                    "STREAM loop", g.group(1) + " GB/s", g.group(2) + " GB/s",
                    r.group(1), "speed")
            g2 = re.search(r"NumPy a \+= 1 %s GB/s" % NUM, lines[i + 1])
            r2 = re.search(r"tensorop/NumPy %s" % NUM, lines[i + 2])
            if g and g2 and r2:
                rec(out, "ewise", "add:1 float32 in place, " + n,
                    "NumPy a += 1", g.group(1) + " GB/s",
                    g2.group(1) + " GB/s", r2.group(1), "speed")
            continue
        m = re.match(r"sub:127.5,div:127.5,relu, float32 in place, (\d+)M "
                     r"items: %s ms; sub:127.5 %s ms" % (NUM, NUM), l)
        if m and i + 1 < len(lines):
            n, case = m.group(1) + "M", "sub:127.5,div:127.5,relu"
            r = re.search(r"chain/sub %s" % NUM, lines[i + 1])
            if r:
                rec(out, "ewise", case + " " + n, "sub:127.5 (per round)",
                    m.group(2) + " ms", m.group(3) + " ms", r.group(1), "time")
            p = re.search(r"NumPy \(3 passes\) %s ms" % NUM, l)
            r = re.search(r"chain/NumPy %s" % NUM, lines[i + 1])
            if p and r:
                rec(out, "ewise", case + " " + n, "NumPy (3 passes)",
                    m.group(2) + " ms", p.group(1) + " ms", r.group(1), "time")
            continue
        m = re.match(r"(cast:\S+), uint8 (\S+): tensorop %s ms.*NumPy %s ms; "
                     r"tensorop/NumPy time ratio %s" % (NUM, NUM, NUM), l)
        if m:
            rec(out, "ewise", "%s uint8 %s" % (m.group(1), m.group(2)),
                "NumPy", m.group(3) + " ms", m.group(4) + " ms", m.group(5),
                "time")
            continue
        m = re.match(r"ORC \S+ against the compiler's kernels, (\d+)K items", l)
        if m:
            orc_n = m.group(1) + "K"
            continue
        m = re.match(r"\s+(.+?)\s+ORC %s\s+AVX2 %s\s+portable %s\s+"
                     r"ORC/AVX2 %s" % (NUM, NUM, NUM, NUM), l)
        if m:
            # ours is the compiler's kernel; the printed ratio is ORC/ours
            rec(out, "ewise", "%s, %s (AVX2 kernel)" % (m.group(1), orc_n),
                "ORC", m.group(3) + " ms", m.group(2) + " ms", m.group(5),
                "speed")
            continue
        m = re.match(r"per buffer, float32 <16>: tensorop add:1 %s ns, "
                     r"identity %s ns, ratio %s" % (NUM, NUM, NUM), l)
        if m:
            rec(out, "ewise", "tensorop add:1 per buffer, float32 <16>",
                "identity", m.group(1) + " ns", m.group(2) + " ns",
                m.group(3), "time")
            continue
        m = re.match(r"n-threads 2 vs 1, (\S+), float32 (\d+M) in place: "
                     r"%s ms vs %s ms, speed-up %s" % (NUM, NUM, NUM), l)
        if m:
            rec(out, "ewise", "%s %s, n-threads=2" % (m.group(1), m.group(2)),
                "n-threads=1", m.group(3) + " ms", m.group(4) + " ms",
                m.group(5), "speed", plot=False)


def parse_gemm(lines, out):
    for l in lines:
        m = re.match(r"(float32|float64)\s+(\d+)\^3, (\d) threads?\s*: tn\s+%s "
                     r"GFLOP/s, OpenBLAS\s+%s, ratio %s" % (NUM, NUM, NUM), l)
        if m:
            rec(out, "gemm", "%s GEMM %s^3, %s thread%s" % (
                m.group(1), m.group(2), m.group(3),
                "s" if m.group(3) != "1" else ""),
                "OpenBLAS", m.group(4) + " GFLOP/s", m.group(5) + " GFLOP/s",
                m.group(6), "speed")
            continue
        m = re.match(r"int8->int32\s+(\d+)\^3, (\d) threads?\s*: tn\s+%s GOP/s"
                     % NUM, l)
        if m:
            out.append({"bench": "gemm", "case": "int8 x int8 -> int32 %s^3, "
                        "%s thread(s)" % (m.group(1), m.group(2)),
                        "peer": None, "ours": m.group(3) + " GOP/s",
                        "peer_figure": None, "ratio": None, "ratio_kind": None,
                        "time_ratio": None, "plot": False})
            continue
        m = re.match(r"\[1,(\d+)\]x\[\d+,\d+\] float32, weights packed once, "
                     r"(\d) threads?: %s GB/s of weights; STREAM-style read %s "
                     r"GB/s \(1 thread\), ratio %s; OpenBLAS sgemv %s GB/s, "
                     r"ratio %s" % (NUM, NUM, NUM, NUM, NUM), l)
        if m:
            k, t = m.group(1), m.group(2)
            case = "[1,%s]x[%s,%s] packed weights, %s thread%s" % (
                k, k, k, t, "s" if t != "1" else "")
            rec(out, "gemm", case, "STREAM read (1 thread)",
                m.group(3) + " GB/s", m.group(4) + " GB/s", m.group(5),
                "speed")
            rec(out, "gemm", case, "OpenBLAS sgemv", m.group(3) + " GB/s",
                m.group(6) + " GB/s", m.group(7), "speed")


def parse_materialize(lines, out):
    for l in lines:
        m = re.match(r"materialize (.+?)(?: \[([^]]*)\])?: %s GB/s, memcpy: "
                     r"%s GB/s, ratio %s" % (NUM, NUM, NUM), l)
        # one kernel forced for comparison: only the one chosen at run time
        if m and (m.group(2) is None or "auto" in m.group(2)):
            rec(out, "materialize", m.group(1), "memcpy",
                m.group(3) + " GB/s", m.group(4) + " GB/s", m.group(5), "time")


def parse_matmul(lines, out):
    for l in lines:
        m = re.match(r"(\[.+?)\s+tensormatmul\s+%s\s+identity\s+%s\s+overhead"
                     % (NUM, NUM), l)
        if m:
            ours, ident = float(m.group(2)), float(m.group(3))
            rec(out, "matmul", "tensormatmul " + m.group(1), "identity",
                m.group(2) + " us", m.group(3) + " us", "%.3f" % (ours / ident),
                "time", plot="4096" not in m.group(1))


def parse_reduce(lines, out):
    for l in lines:
        m = re.match(r"([^#].*?): %s GB/s \(" % NUM, l)
        if not m:
            continue
        r = re.search(r"read loop %s GB/s, ratio %s" % (NUM, NUM), l)
        if r:
            rec(out, "reduce", m.group(1), "STREAM read loop",
                m.group(2) + " GB/s", r.group(1) + " GB/s", r.group(2),
                "speed")
        r = re.search(r"NumPy %s GB/s \([^)]*\), ratio %s" % (NUM, NUM), l)
        if r:
            rec(out, "reduce", m.group(1), "NumPy", m.group(2) + " GB/s",
                r.group(1) + " GB/s", r.group(2), "speed")


def parse_src(lines, out):
    for l in lines:
        m = re.match(r"(\S+ x float32)\s+(\S+)\s+%s\s+%s\s+%s$"
                     % (NUM, NUM, NUM), l)
        if m:
            rec(out, "src", "tensorsrc %s %s" % (m.group(1), m.group(2)),
                "fakesrc (never writes)", m.group(3) + " ns",
                m.group(4) + " ns", m.group(5), "time",
                plot=m.group(1).startswith("16 "))


def parse_view(lines, out):
    for l in lines:
        m = re.match(r"(\S.*?)\s+%s us\s+(identity|memcpy)\s+%s us\s+ratio\s+%s"
                     % (NUM, NUM, NUM), l)
        if m:
            rec(out, "view", m.group(1), m.group(3), m.group(2) + " us",
                m.group(4) + " us", m.group(5), "time")


def parse_window(lines, out):
    """A case line (no indent), then "  ratio time A/B x; C/D y; ...": every
    pair a time ratio of that case (the first figure of "x / y")."""
    case = None
    for l in lines:
        if l and not l.startswith(" ") and not l.startswith("bench_window"):
            case = l.split(":")[0]
        elif l.startswith("  ratio time") and case:
            for ours, peer, r in re.findall(r"([\w-]+)/([a-z][\w ]*?) %s"
                                            % NUM, l):
                rec(out, "window", "%s: %s" % (case, ours), peer.strip(),
                    "", "", r, "time")


def parse_transport(lines, out):
    """"KIND TENSOR VIDEO RATIO LOST": us a buffer over each transport,
    tensor caps against video caps of the same bytes."""
    for l in lines:
        m = re.match(r"(tcp|rtp|rtp60k|shm)\s+%s\s+%s\s+%s\s+(\d+)" % (NUM, NUM, NUM),
                     l)
        if m:
            rec(out, "transport", "%s <480, 640, 3> uint8" % m.group(1),
                "same bytes as video/x-raw", m.group(2) + " us",
                m.group(3) + " us", m.group(4), "time")


def parse_peers(lines, out):
    """A case's title line ("...:"), then "ours T, NNStreamer T: ours /
    NNStreamer R" when NNStreamer was found, and "identity T: ours /
    identity R" for the per-buffer case."""
    case = ours = None
    for l in lines:
        if l.endswith(":") and not l.startswith(" "):
            case, ours = l[:-1], None
            continue
        m = re.match(r"\s+ours ([0-9.]+ [a-z]+)", l)
        if m:
            ours = m.group(1)
        m = re.match(r"\s+ours (\S+ \S+), NNStreamer (\S+ \S+): ours / "
                     r"NNStreamer %s" % NUM, l)
        if m and case:
            rec(out, "peers", case, "NNStreamer", m.group(1), m.group(2),
                m.group(3), "time")
        m = re.match(r"\s+identity (\S+ \S+): ours / identity %s" % NUM, l)
        if m and case:
            rec(out, "peers", case, "identity", ours or "", m.group(1),
                m.group(2), "time")


PARSERS = {"alloc": parse_alloc, "ewise": parse_ewise, "gemm": parse_gemm,
           "materialize": parse_materialize, "matmul": parse_matmul,
           "peers": parse_peers, "reduce": parse_reduce, "src": parse_src,
           "view": parse_view, "window": parse_window,
           "transport": parse_transport}


def parse(text):
    """(header lines, figures) of one run's output."""
    header, figures, sections, name = [], [], {}, None
    for l in text.splitlines():
        m = re.match(r"## bench_(\w+)", l)
        if m:
            name = m.group(1)
            sections.setdefault(name, [])
        elif name is None:
            if l.startswith("# "):
                header.append(l[2:])
        else:
            sections[name].append(l)
    for name, lines in sections.items():
        if name in PARSERS:
            PARSERS[name](lines, figures)
    return header, figures


def plot(header, figures, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    plt.rcParams["svg.hashsalt"] = "gst-tensor"
    plt.rcParams["svg.fonttype"] = "none"  # text as text: a smaller file
    shown = [f for f in figures if f["plot"]]
    if not shown:
        # not an error: a run of benchmarks that print fractions of a
        # limit alone (bench_peers without NNStreamer) has no ratio
        print("plot.py: no ratio to plot, %s not written" % path)
        return False
    benches = list(dict.fromkeys(f["bench"] for f in shown))
    colours = plt.get_cmap("tab10")
    fig, ax = plt.subplots(figsize=(11, 1.6 + 0.24 * len(shown)))
    y = list(range(len(shown)))[::-1]
    vals = [f["time_ratio"] for f in shown]
    # each bar runs from 1.0 to its ratio: left of the line ours is faster
    ax.barh(y, [v - 1.0 for v in vals], height=0.7, left=1.0,
            color=[colours(benches.index(f["bench"]) % 10) for f in shown])
    ax.set_xscale("log")
    lo = min(min(vals) / 1.6, 0.5)
    hi = max(max(vals) * 1.8, 2.0)
    ax.set_xlim(lo, hi)
    ticks = [t for t in (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20,
                         50, 100, 200, 500, 1000) if lo <= t <= hi]
    ax.set_xticks(ticks)
    ax.set_xticklabels(["%g" % t for t in ticks])
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.axvline(1.0, color="black", linewidth=1)
    ax.set_yticks(y)
    ax.set_yticklabels(["%s: %s / %s" % (f["bench"], f["case"], f["peer"])
                        for f in shown], fontsize=7)
    ax.set_ylim(-0.7, len(shown) - 0.3)
    for yi, v in zip(y, vals):
        ax.text(v * (1.04 if v >= 1 else 1 / 1.04), yi, "%.2f" % v,
                va="center", ha="left" if v >= 1 else "right", fontsize=6)
    ax.set_xlabel("time ours / time peer (log scale; below 1.0 ours is "
                  "faster)")
    ax.grid(axis="x", which="both", linewidth=0.3, alpha=0.5)
    ax.set_title("bench/run.sh, " + "\n".join(header), fontsize=8)
    fig.tight_layout()
    fig.savefig(path, metadata={"Date": None} if path.endswith(".svg")
                else None)
    return True


def main(argv):
    if len(argv) not in (2, 3):
        sys.exit(__doc__)
    with open(argv[1]) as f:
        header, figures = parse(f.read())
    base = os.path.splitext(argv[1])[0]
    out = argv[2] if len(argv) == 3 else base + ".svg"
    with open(base + ".json", "w") as f:
        json.dump({"run": header, "figures": figures}, f, indent=1)
        f.write("\n")
    if plot(header, figures, out):
        print("plot.py: %d figures (%d plotted) -> %s, %s" % (
            len(figures), sum(f["plot"] for f in figures), out,
            base + ".json"))
    else:
        print("plot.py: %d figures -> %s" % (len(figures), base + ".json"))


if __name__ == "__main__":
    main(sys.argv)
