"""Plots of sweep results (dvsim.load, dvsim.sweep) with matplotlib, written
as PNG or SVG (by the file's extension):

    metric(rows, x='l1', y='chip.cycles', out='cycles.png')         a metric against one axis, a line per workload
    heatmap(rows, x='l1', y='hbm', value='chip.cycles', out='h.png') a metric over two axes
    roofline(rows, out='roof.png')                                  achieved TFLOPS against operational intensity
                                                                    under the chips' roofs

rows is a pandas DataFrame or a list of dicts; where={'chip': 'ascend910b1', 'aic': 20} keeps
the rows with those values, and only the rows of jobs that passed are drawn.  The figure is
size inches at dpi (default 6.4 x 4.8 at 100: a 640 x 480 PNG).  Each function returns the
matplotlib Figure."""
import math

import sys

try:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
except ImportError as e:  # one clear line instead of a traceback into importlib
    raise ImportError(f"dvsim.plot needs matplotlib, which {sys.executable} does not have "
                      "(Debian: apt-get install python3-matplotlib, then run /usr/bin/python3)") from e

# What a roofline needs of each row (the sweep's metrics): the Cube's MACs and FLOP rate,
# the HBM bytes moved, and the chip's two roofs.
ROOFLINE_METRICS = ("op.cube_macs", "op.cube_tflops", "chip.hbm.bytes", "op.peak_fp16_tflops", "chip.hbm.peak_gbps")


def _rows(rows, where=None):
    if hasattr(rows, "to_dict"):
        rows = rows.to_dict("records")
    out = []
    for r in rows:
        if r.get("status", "ok") != "ok":
            continue
        if where and any(r.get(k) != v for k, v in where.items()):
            continue
        out.append(r)
    if not out:
        raise ValueError("no rows of passed jobs" + (f" with {where}" if where else ""))
    return out


def _figure(size, dpi):
    fig = Figure(figsize=size, dpi=dpi)
    FigureCanvasAgg(fig)
    return fig


def _save(fig, out, dpi):
    if out:
        fig.savefig(out, dpi=dpi)
    return fig


def _label(by, key):
    return ", ".join(str(k) for k in key) if by else None


def metric(rows, x, y, by=("workload", "chip"), where=None, out=None, logx=False, logy=False, title=None,
           size=(6.4, 4.8), dpi=100):
    """y against axis x, a line per value of the columns by (default: per workload and chip).
    The rows of a line must differ in x alone: fix the other axes with where or name them in by."""
    rows = _rows(rows, where)
    lines = {}
    for r in rows:
        key = tuple(r[b] for b in by)
        pts = lines.setdefault(key, {})
        if r[x] in pts:
            raise ValueError(f"{_label(by, key)}: several rows at {x}={r[x]}; fix the other axes with where= or add "
                             "them to by=")
        pts[r[x]] = r[y]
    fig = _figure(size, dpi)
    ax = fig.add_subplot()
    if len(lines) > 10:  # past the default cycle's ten colours
        import matplotlib

        cmap = matplotlib.colormaps["tab20"]
        ax.set_prop_cycle(color=[cmap(i % 20) for i in range(len(lines))])
    for key, pts in sorted(lines.items(), key=lambda kv: str(kv[0])):
        xs = sorted(pts)
        ax.plot(xs, [pts[v] for v in xs], marker="o", label=_label(by, key))
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    if logx:
        ax.set_xscale("log", base=2)
    if logy:
        ax.set_yscale("log")
    ax.grid(True, alpha=0.3)
    if by:
        ax.legend(fontsize="small")
    ax.set_title(title or f"{y} against {x}")
    fig.tight_layout()
    return _save(fig, out, dpi)


def heatmap(rows, x, y, value, where=None, out=None, title=None, fmt="{:.3g}", size=(6.4, 4.8), dpi=100):
    """value over axes x (columns) and y (rows), each cell one job (fix the other axes and the
    workload and chip with where)."""
    rows = _rows(rows, where)
    xs = sorted({r[x] for r in rows})
    ys = sorted({r[y] for r in rows})
    grid = [[math.nan] * len(xs) for _ in ys]
    seen = set()
    for r in rows:
        cell = (r[y], r[x])
        if cell in seen:
            raise ValueError(f"several rows at {x}={r[x]}, {y}={r[y]}: fix the other axes (and workload, chip) with "
                             "where=")
        seen.add(cell)
        grid[ys.index(r[y])][xs.index(r[x])] = r[value]
    fig = _figure(size, dpi)
    ax = fig.add_subplot()
    im = ax.imshow(grid, origin="lower", aspect="auto", cmap="viridis")
    ax.set_xticks(range(len(xs)), [str(v) for v in xs], rotation=30, fontsize="small")
    ax.set_yticks(range(len(ys)), [str(v) for v in ys], fontsize="small")
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    finite = [v for row in grid for v in row if not math.isnan(v)]
    mid = (min(finite) + max(finite)) / 2 if finite else 0
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            if not math.isnan(v):
                ax.text(j, i, fmt.format(v), ha="center", va="center", fontsize="x-small",
                        color="white" if v < mid else "black")
    fig.colorbar(im, ax=ax, label=value)
    ax.set_title(title or f"{value} over {x} x {y}")
    fig.tight_layout()
    return _save(fig, out, dpi)


def roofline_points(rows, where=None):
    """Each passed job as (intensity FLOP/byte over HBM, achieved TFLOPS, Cube roof TFLOPS,
    HBM roof GB/s, row); jobs that moved no HBM byte or did no MAC are left out."""
    rows = _rows(rows, where)
    missing = [m for m in ROOFLINE_METRICS if m not in rows[0]]
    if missing:
        raise ValueError("a roofline needs the metrics " + ", ".join(ROOFLINE_METRICS) + "; missing: " +
                         ", ".join(missing))
    pts = []
    for r in rows:
        if r["chip.hbm.bytes"] and r["op.cube_macs"]:
            pts.append((2.0 * r["op.cube_macs"] / r["chip.hbm.bytes"], r["op.cube_tflops"], r["op.peak_fp16_tflops"],
                        r["chip.hbm.peak_gbps"], r))
    return pts


def roofline(rows, where=None, by=("workload",), out=None, title=None, size=(6.4, 4.8), dpi=100):
    """Achieved Cube TFLOPS against operational intensity (FLOPs per HBM byte), log-log, a
    colour per value of by, under the roofs of the chips the rows ran on: min(Cube peak,
    intensity x HBM bandwidth), one roof per distinct (peak, bandwidth)."""
    pts = roofline_points(rows, where)
    if not pts:
        raise ValueError("no job with Cube MACs and HBM bytes to place on a roofline")
    fig = _figure(size, dpi)
    ax = fig.add_subplot()
    lo = min(p[0] for p in pts) / 4
    hi = max(max(p[0] for p in pts), max(p[2] * 1e3 / p[3] for p in pts)) * 4
    xs = [lo * (hi / lo) ** (i / 200) for i in range(201)]
    for peak, bw in sorted({(p[2], p[3]) for p in pts}):
        ax.plot(xs, [min(peak, x * bw / 1e3) for x in xs], color="grey", lw=1, alpha=0.7)
    for peak in sorted({p[2] for p in pts}):  # each roof named once: the Cube's on the right, HBM's on the left
        ax.annotate(f"{peak:.0f} TFLOPS", (hi, peak), fontsize="xx-small", ha="right", va="bottom", color="grey")
    for bw in sorted({p[3] for p in pts}):
        ax.annotate(f"{bw:.0f} GB/s", (lo, lo * bw / 1e3), fontsize="xx-small", ha="left", va="bottom", color="grey",
                    rotation=20)
    groups = {}
    for p in pts:
        groups.setdefault(tuple(p[4][b] for b in by), []).append(p)
    for key, g in sorted(groups.items(), key=lambda kv: str(kv[0])):
        ax.scatter([p[0] for p in g], [p[1] for p in g], s=14, label=_label(by, key), zorder=3)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("operational intensity (FLOP per HBM byte)")
    ax.set_ylabel("achieved Cube TFLOPS")
    ax.grid(True, which="both", alpha=0.2)
    if by:
        ax.legend(fontsize="small", loc="lower right")
    ax.set_title(title or "roofline")
    fig.tight_layout()
    return _save(fig, out, dpi)
