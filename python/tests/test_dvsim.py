"""pytest of the Python package: dvsim.run against dvsim run, errors with
dvsim's exit codes, sweeps against runs, pandas loading, and the plots (a
PNG of the size asked for, an SVG, roofline points under the roofs)."""
import json
import os
import struct
import subprocess

import pytest

import dvsim

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VADD = os.path.join(ROOT, "kernels", "samples", "vadd.dvs")


def cli_stats(tmp_path, *args):
    out = tmp_path / "cli"
    subprocess.run([dvsim.executable(), "run", *args, "--out", str(out)], check=True, stdout=subprocess.DEVNULL)
    return {k: v["value"] for k, v in json.loads((out / "stats.json").read_text()).items()}


def test_run_is_dvsim_run(tmp_path):
    s = dvsim.run("matmul", shape=dict(M=256, N=256, K=256))
    ref = cli_stats(tmp_path, "matmul", "--shape", "M=256,N=256,K=256")
    assert s["cycles"] == ref["op.total_cycles"]
    assert s["op.check_passed"] == 1  # with data, checked against the reference
    for k, v in ref.items():
        assert s[k] == pytest.approx(v, rel=1e-5), k


def test_run_set_and_chip(tmp_path):
    args = dict(shape="M=512,N=512,K=512", chip="ascend910b1", data=False)
    fast = dvsim.run("matmul", **args)
    slow = dvsim.run("matmul", set={"memory.hbm_bytes_per_cycle": 20}, **args)
    ref = cli_stats(tmp_path, "matmul", "--shape", "M=512,N=512,K=512", "--chip", "ascend910b1", "--no-data",
                    "--set", "memory.hbm_bytes_per_cycle=20")
    assert slow["cycles"] == ref["op.total_cycles"]
    assert slow["chip.hbm.peak_gbps"] < fast["chip.hbm.peak_gbps"]
    assert slow["cycles"] > fast["cycles"]  # 20 B/cycle of HBM starves the Cube


def test_run_errors():
    with pytest.raises(dvsim.DvsimError) as e:
        dvsim.run("matmul", shape=dict(M=0))
    assert e.value.code == 65
    with pytest.raises(dvsim.DvsimError) as e:
        dvsim.run("matmul", chip="ascend999")
    assert e.value.code == 78
    with pytest.raises(dvsim.DvsimError) as e:
        dvsim.run("nosuchop")
    assert e.value.code == 65


def test_run_kernel(tmp_path):
    gms = {"x": "random:f16:32768:1", "y": "random:f16:32768:2", "z": "zeros:65536"}
    s = dvsim.run(VADD, args={"n": 32768}, gms=gms)
    ref = cli_stats(tmp_path, VADD, *[a for k, v in gms.items() for a in ("--gm", f"{k}={v}")], "--arg", "n=32768")
    assert s["cycles"] == ref["chip.cycles"]


def test_chip():
    c = dvsim.chip("ascend910b1")
    listed = json.loads(subprocess.run([dvsim.executable(), "chips", "--json"], check=True, capture_output=True,
                                       text=True).stdout)
    b1 = next(x for x in listed if x["name"] == "ascend910b1")
    assert c["chip.clock_mhz"] == b1["clock_mhz"]
    assert dvsim.chip("ascend910b1", set={"buffer.l1_bytes": 262144})["buffer.l1_bytes"] == 262144


SPEC = {
    "name": "py",
    "chips": ["ascend910b1"],
    "metrics": ["op.total_cycles", "chip.cycles"] + list(("op.cube_macs", "op.cube_tflops", "chip.hbm.bytes",
                                                           "op.peak_fp16_tflops", "chip.hbm.peak_gbps")),
    "workloads": [{"name": "mm", "op": "matmul", "shape": {"M": 256, "N": 256, "K": 512}},
                  {"name": "mm2", "op": "matmul", "shape": {"M": 512, "N": 512, "K": 256}}],
    "axes": [{"name": "hbm", "key": "memory.hbm_bytes_per_cycle", "values": [50, 200, 800]},
             {"name": "aic", "key": "chip.cores", "values": [8, 24]}],
}


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep") / "py.sweep"
    return dvsim.sweep(SPEC, out=str(out), local=2, frame=False), out


def test_sweep_rows_are_runs(swept):
    rows, _ = swept
    assert len(rows) == 12 and all(r["status"] == "ok" for r in rows)
    assert [r["id"] for r in rows] == list(range(12))
    assert rows[0]["hbm"] == 50 and rows[0]["aic"] == 8 and rows[1]["aic"] == 24  # the last axis fastest
    for r in (rows[0], rows[7], rows[11]):
        w = next(w for w in SPEC["workloads"] if w["name"] == r["workload"])
        s = dvsim.run("matmul", shape=w["shape"], chip=r["chip"], data=False,
                      set={"memory.hbm_bytes_per_cycle": r["hbm"], "chip.cores": r["aic"]})
        assert r["op.total_cycles"] == s["cycles"]


def test_sweep_resumes(swept):
    rows, out = swept
    before = {p: os.stat(p).st_mtime_ns for p in out.glob("jobs/*/status.json")}
    again = dvsim.sweep(SPEC, out=str(out), local=2, frame=False)
    assert again == rows
    assert {p: os.stat(p).st_mtime_ns for p in out.glob("jobs/*/status.json")} == before


def test_sweep_kernel_args(tmp_path, monkeypatch):
    """A kernel workload with an axis over one of its arguments, a relative path made absolute,
    through GNU parallel when it is installed; each row's cycles those of dvsim.run."""
    monkeypatch.chdir(ROOT)
    spec = {"chips": ["ascend910"], "metrics": ["chip.cycles"],
            "workloads": [{"name": "vadd", "kernel": "kernels/samples/vadd.dvs", "args": {"n": 16384},
                           "gms": {"x": "random:f16:32768:1", "y": "random:f16:32768:2", "z": "zeros:65536"}}],
            "axes": [{"name": "n", "arg": "n", "values": [16384, 32768]}]}
    import shutil
    rows = dvsim.sweep(spec, out=str(tmp_path / "k.sweep"), parallel=True if shutil.which("parallel") else None,
                       frame=False)
    assert [r["n"] for r in rows] == [16384, 32768] and all(r["status"] == "ok" for r in rows)
    for r in rows:
        s = dvsim.run(VADD, args={"n": r["n"]}, gms=spec["workloads"][0]["gms"], data=False)
        assert r["chip.cycles"] == s["cycles"]
    assert rows[0]["chip.cycles"] < rows[1]["chip.cycles"]


def test_sweep_bad_spec(tmp_path):
    with pytest.raises(dvsim.DvsimError) as e:
        dvsim.sweep({"workloads": [{"name": "a", "op": "add"}],
                     "axes": [{"name": "x", "key": "buffer.nope", "values": [1]}]}, out=str(tmp_path / "b"))
    assert e.value.code == 78 and "unknown config key" in str(e.value)


def test_load_pandas(swept):
    pandas = pytest.importorskip("pandas")
    _, out = swept
    df = dvsim.load(str(out))
    assert isinstance(df, pandas.DataFrame)
    assert len(df) == 12 and df["hbm"].dtype.kind == "i"
    assert list(df.columns[:6]) == ["id", "hash", "workload", "chip", "hbm", "aic"]


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


def test_plot_metric_png(swept, tmp_path):
    rows, _ = swept
    p = tmp_path / "m.png"
    dvsim.plot.metric(rows, x="hbm", y="op.total_cycles", where={"aic": 24}, logx=True, out=str(p))
    assert png_size(p) == (640, 480)
    p2 = tmp_path / "m2.png"
    dvsim.plot.metric(rows, x="aic", y="op.total_cycles", where={"hbm": 800}, out=str(p2), size=(4, 3), dpi=50)
    assert png_size(p2) == (200, 150)
    with pytest.raises(ValueError):  # two lines' rows at one x: the other axis not fixed
        dvsim.plot.metric(rows, x="hbm", y="op.total_cycles")


def test_plot_heatmap_svg(swept, tmp_path):
    rows, _ = swept
    p = tmp_path / "h.svg"
    dvsim.plot.heatmap(rows, x="hbm", y="aic", value="op.total_cycles", where={"workload": "mm"}, out=str(p))
    text = p.read_text()
    assert text.lstrip().startswith("<?xml") and "<svg" in text
    p2 = tmp_path / "h.png"
    dvsim.plot.heatmap(rows, x="hbm", y="aic", value="op.total_cycles", where={"workload": "mm2"}, out=str(p2))
    assert png_size(p2) == (640, 480)


def test_roofline_under_the_roofs(swept, tmp_path):
    rows, _ = swept
    pts = dvsim.plot.roofline_points(rows)
    assert len(pts) == 12
    for intensity, achieved, peak, bw, r in pts:
        assert 0 < achieved <= min(peak, intensity * bw / 1e3) * (1 + 1e-6), r
    # the roofs are the chips': 2 x MACs/cycle x cores x clock, and the HBM bytes per cycle x clock
    c = dvsim.chip("ascend910b1", set={"chip.cores": 8, "memory.hbm_bytes_per_cycle": 50})
    peak8 = 2 * c["cube.m"] * c["cube.n"] * c["cube.k_fp16"] * 8 * c["chip.clock_mhz"] * 1e6 / 1e12
    r = next(p for p in pts if p[4]["aic"] == 8 and p[4]["hbm"] == 50)
    assert r[2] == pytest.approx(peak8, rel=1e-5)  # stats.json has 6 digits
    assert r[3] == pytest.approx(50 * c["chip.clock_mhz"] * 1e6 / 1e9, rel=1e-4)
    p = tmp_path / "roof.png"
    dvsim.plot.roofline(rows, out=str(p))
    assert png_size(p) == (640, 480)
