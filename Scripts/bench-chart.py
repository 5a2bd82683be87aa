#!/usr/bin/env python3
"""Draws one benchmark run as an SVG chart: the library beside each peer, as ratios.

    bench-chart.py FIGURES SVG

FIGURES is what `bench-report.py --save` wrote for a run (`make bench` and
`make bench-all` save it as build/bench/figures.tsv): one "case<TAB>value"
per line, the C programs' times and callgrind counts (as instr.<case>) and,
after `make bench-all`, the Swift benchmarks' medians (as swift.<case>).

Each bar is one comparison, the peer's figure divided by the library's for
the same work in the same run: above 1x the library is that many times
faster (or smaller), below 1x slower. Bars are grouped by peer (GLib,
libsigc++, a raw ffi_call or libffi closure, NotificationCenter,
OpenCombine) on a logarithmic axis. A comparison whose figures the run does
not have (a C-only run has no Swift figures) is left out, and the chart says
which peers are missing.
"""

import argparse
import html
import importlib.util
import math
import os
import sys

# (peer, [(label, the peer's case, the library's case)]): time, bytes or
# instructions of the same work; "instr." cases are callgrind counts.
COMPARISONS = [
    ("GLib 2", [
        ("emit, 1 handler (by id)", "dispatch.glib_emit.1", "dispatch.table_id.1"),
        ("emit, 10 handlers (by id)", "dispatch.glib_emit.10", "dispatch.table_id.10"),
        ("emit by name, 1 handler", "dispatch.glib_by_name.1", "dispatch.table_key.1"),
        ("emit with a detail", "dispatch.glib_detail.2", "dispatch.table_detail.2"),
        ("emit with an emission hook", "dispatch.glib_hook.1", "dispatch.table_hook.1"),
        ("emit, 1 handler, instructions", "instr.dispatch.glib_emit.1", "instr.dispatch.table_id.1"),
        ("connect", "register.glib", "register.table"),
        ("heap bytes per handler", "memory.glib", "memory.table"),
    ]),
    ("libsigc++ 3", [
        ("emit, 1 handler", "dispatch.sigc_emit.1", "dispatch.table_id.1"),
        ("emit, 10 handlers", "dispatch.sigc_emit.10", "dispatch.table_id.10"),
        ("connect", "register.sigc", "register.table"),
        ("heap bytes per handler", "memory.sigc", "memory.table"),
    ]),
    ("raw libffi", [
        ("ffi_call vs the stub path, void(ptr)", "invoke.raw_ffi.void_ptr", "invoke.stub.void_ptr"),
        ("ffi_call vs the libffi path, void(ptr)", "invoke.raw_ffi.void_ptr", "invoke.libffi.void_ptr"),
        ("ffi_call vs a struct argument", "call.raw_ffi.struct_arg", "call.invoke.struct_arg"),
        ("libffi closure vs dc_closure", "closure.raw.void_ptr", "closure.dc.void_ptr"),
    ]),
    ("NotificationCenter", [
        ("post vs execute(EventKey), 1 handler", "swift.notificationCenter1", "swift.executeTyped1"),
        ("post vs execute(String), 1 handler", "swift.notificationCenter1", "swift.executeString1"),
        ("post vs execute(EventKey), 10 handlers", "swift.notificationCenter10", "swift.executeTyped10"),
        ("addObserver + remove vs on + cancel", "swift.registerNotificationCenter", "swift.registerCommandTable"),
        ("heap bytes per observer", "swift.memoryNotificationCenter", "swift.memoryCommandTableTyped"),
    ]),
    ("OpenCombine", [
        ("send vs execute(EventKey), 1 handler", "swift.openCombine1", "swift.executeTyped1"),
        ("send vs execute(EventKey), 10 handlers", "swift.openCombine10", "swift.executeTyped10"),
        ("sink + cancel vs on + cancel", "swift.registerOpenCombine", "swift.registerCommandTable"),
        ("heap bytes per subscriber", "swift.memoryOpenCombine", "swift.memoryCommandTableTyped"),
    ]),
]

# The axis: ratios from 1/4 to 256, each doubling the same width.
LOW, HIGH = 0.25, 256.0
TICKS = [0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, 128, 256]

LABEL_WIDTH = 300
PLOT_WIDTH = 440
VALUE_WIDTH = 70
BAR_HEIGHT = 16
ROW_HEIGHT = 22
GROUP_GAP = 26
TOP = 70
FONT = "font-family='DejaVu Sans, Helvetica, Arial, sans-serif'"


def read_figures(path):
    """The figures as bench-report.py saved them, read by its own reader."""
    spec = importlib.util.spec_from_file_location(
        "bench_report", os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench-report.py"))
    bench_report = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench_report)
    return bench_report.read_tsv(path)


def comparisons(figures):
    """The groups the run has figures for, and the peers it has none for."""
    groups, missing = [], []
    for peer, rows in COMPARISONS:
        present = [(label, figures[theirs] / figures[ours]) for label, theirs, ours in rows
                   if figures.get(theirs) and figures.get(ours)]
        if present:
            groups.append((peer, present))
        else:
            missing.append(peer)
    return groups, missing


def x_of(ratio):
    clamped = min(max(ratio, LOW), HIGH)
    return LABEL_WIDTH + PLOT_WIDTH * math.log(clamped / LOW) / math.log(HIGH / LOW)


def text(x, y, content, size=12, anchor="start", weight="normal", fill="#222"):
    return (f"<text x='{x:.1f}' y='{y:.1f}' {FONT} font-size='{size}' text-anchor='{anchor}' "
            f"font-weight='{weight}' fill='{fill}'>{html.escape(content)}</text>")


def draw(groups, missing, title):
    rows = sum(len(rows) for _, rows in groups)
    height = TOP + rows * ROW_HEIGHT + len(groups) * GROUP_GAP + 50
    width = LABEL_WIDTH + PLOT_WIDTH + VALUE_WIDTH
    parts = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
             f"viewBox='0 0 {width} {height}'>",
             f"<rect width='{width}' height='{height}' fill='white'/>",
             text(10, 22, title, size=15, weight="bold"),
             text(10, 42, "the peer's time, bytes or instructions divided by EventKitSwift's for the same work, "
                          "in one run", size=11, fill="#555")]
    bottom = height - 40
    for tick in TICKS:
        x = x_of(tick)
        parts.append(f"<line x1='{x:.1f}' y1='{TOP - 8}' x2='{x:.1f}' y2='{bottom}' "
                     f"stroke='{'#888' if tick == 1 else '#e3e3e3'}' stroke-width='1'/>")
        parts.append(text(x, bottom + 14, f"{tick:g}x", size=10, anchor="middle", fill="#555"))
    parts.append(text(x_of(1) - 6, TOP - 12, "slower", size=10, anchor="end", fill="#a33"))
    parts.append(text(x_of(1) + 6, TOP - 12, "faster or smaller", size=10, fill="#262"))
    y = TOP
    for peer, rows in groups:
        parts.append(text(10, y + 12, f"vs {peer}", size=13, weight="bold"))
        y += GROUP_GAP - 6
        for label, ratio in rows:
            start, end = sorted((x_of(1), x_of(ratio)))
            colour = "#3a8d3a" if ratio >= 1 else "#c0504d"
            parts.append(text(LABEL_WIDTH - 8, y + BAR_HEIGHT - 4, label, size=11, anchor="end"))
            parts.append(f"<rect x='{start:.1f}' y='{y}' width='{max(end - start, 1):.1f}' "
                         f"height='{BAR_HEIGHT}' fill='{colour}'/>")
            parts.append(text(LABEL_WIDTH + PLOT_WIDTH + 6, y + BAR_HEIGHT - 4, f"{ratio:.2f}x", size=11))
            y += ROW_HEIGHT
        y += 6
    if missing:
        parts.append(text(10, height - 8, "not in this run: " + ", ".join(missing), size=10, fill="#555"))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("figures", help="bench-report.py --save output")
    parser.add_argument("svg", help="the chart to write")
    parser.add_argument("--title", default="EventKitSwift beside its peers")
    args = parser.parse_args()
    groups, missing = comparisons(read_figures(args.figures))
    if not groups:
        sys.exit(f"bench-chart.py: {args.figures} has no figures of a comparison; run make bench-all")
    with open(args.svg, "w") as f:
        f.write(draw(groups, missing, args.title))
    print(f"bench-chart.py: {args.svg}: {sum(len(r) for _, r in groups)} comparisons"
          + (f"; no figures for {', '.join(missing)}" if missing else ""))


if __name__ == "__main__":
    main()
