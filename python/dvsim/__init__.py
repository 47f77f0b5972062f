"""dvsim from Python: run an operator in-process (libdvsim.so), run sweeps
(dvsim sweep), load their results (into pandas when it is installed) and plot
them (dvsim.plot, matplotlib).

    import dvsim
    s = dvsim.run('matmul', shape=dict(M=256, N=256, K=256), chip='ascend910b1',
                  set={'memory.hbm_bytes_per_cycle': 400})
    s['cycles'], s['chip.hbm.gbps']

    rows = dvsim.sweep({'workloads': [{'name': 'mm', 'op': 'matmul'}],
                        'axes': [{'name': 'l1', 'key': 'buffer.l1_bytes', 'values': [262144, 524288]}]},
                       out='l1.sweep', local=2)

docs/sweeps.md describes the spec, the results and the plots."""
import json
import os
import subprocess
import tempfile

from ._native import DvsimError, chip_ini, executable, library_path, run_op, version

__all__ = ["run", "sweep", "load", "chip", "DvsimError", "version", "executable", "library_path", "plot"]


def _shape_text(shape):
    if shape is None or isinstance(shape, str):
        return shape
    return ",".join(f"{k}={v}" for k, v in shape.items())


def _flatten(stats_json):
    stats = {name: s["value"] for name, s in json.loads(stats_json).items()}
    # an operator's cycles are those of all its launches; a kernel's, its run's
    stats["cycles"] = stats.get("op.total_cycles", stats.get("chip.cycles"))
    return stats


def _is_kernel(op):
    return op.endswith((".dvs", ".elf")) or os.path.sep in op


def run(op, shape=None, chip=None, set=None, variant=None, dtype=None, seed=1, blocks=None, data=True,
        config=None, args=None, gms=None, check=True):
    """Runs operator op (dvsim ops lists them) or a kernel file (.dvs, .elf; with args={'n': 32768}
    and gms={'x': 'random:f16:32768:1'}) and returns its statistics as a dict: the names of
    stats.json ('chip.cycles', 'op.total_cycles', 'core0.cube.busy_pct', ...) with their values,
    and 'cycles'.  chip is a built-in chip (default ascend910), config an INI file instead, set a
    dict of config keys to change.  data=False is timing only (no arithmetic, no check).  A failed
    run (a bad request, a fault, a mismatch) raises DvsimError with dvsim's exit code, unless
    check=False (then the dict has 'exit' and 'error')."""
    if _is_kernel(op):
        return _run_kernel(op, chip, set, config, seed, blocks, data, args, gms, check)
    rc, text, err = run_op(op, variant, dtype, _shape_text(shape), chip, config, set, seed, blocks, data)
    if text is None or (rc and check):
        raise DvsimError(f"dvsim run {op}: {err}", rc)
    stats = _flatten(text)
    if rc:
        stats["exit"], stats["error"] = rc, err
    return stats


def _run_kernel(path, chip, sets, config, seed, blocks, data, args, gms, check):
    cmd = [executable(), "run", path, "--json", "--seed", str(seed)]
    cmd += ["--config", config] if config else (["--chip", chip] if chip else [])
    for k, v in (sets or {}).items():
        cmd += ["--set", f"{k}={v}"]
    for k, v in (args or {}).items():
        cmd += ["--arg", f"{k}={v}"]
    for k, v in (gms or {}).items():
        cmd += ["--gm", f"{k}={v}"]
    if blocks:
        cmd += ["--blocks", str(blocks)]
    if not data:
        cmd.append("--no-data")
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode and (check or not p.stdout.strip()):
        raise DvsimError(p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit {p.returncode}",
                         p.returncode)
    stats = _flatten(p.stdout)
    if p.returncode:
        stats["exit"], stats["error"] = p.returncode, p.stderr.strip()
    return stats


def chip(name=None, set=None):
    """The chip config (a built-in name or an .ini file, changed by set) as a dict
    {'chip.cores': 25, 'memory.hbm_bytes_per_cycle': 889, ...}."""
    out, section = {}, ""
    for line in chip_ini(name, set).splitlines():
        line = line.split(";", 1)[0].strip()
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
        elif "=" in line:
            k, v = (x.strip() for x in line.split("=", 1))
            try:
                out[f"{section}.{k}"] = int(v, 0)
            except ValueError:
                out[f"{section}.{k}"] = v
    return out


def _number(v):
    if not isinstance(v, str):
        return v
    for conv in (int, float):
        try:
            return conv(v)
        except ValueError:
            pass
    return v


def load(folder, frame=None):
    """The results of a sweep folder (DIR/results.json): a row per job with id, hash, workload,
    chip, the axes (numbers where they are), status ('ok', 'failed', 'pending'), exit, the
    metrics and message.  A pandas DataFrame when frame is True, or None and pandas is
    installed; a list of dicts otherwise."""
    with open(os.path.join(folder, "results.json")) as f:
        res = json.load(f)
    rows = []
    for j in res["jobs"]:
        row = {"id": j["id"], "hash": j["hash"], "workload": j["workload"], "chip": j["chip"]}
        row.update({k: _number(v) for k, v in j["axes"].items()})
        row.update(status=j["status"], exit=j["exit"])
        row.update(j["metrics"])
        row["message"] = j["message"]
        rows.append(row)
    if frame is False:
        return rows
    try:
        import pandas
    except ImportError:
        if frame:
            raise
        return rows
    return pandas.DataFrame(rows, columns=list(rows[0].keys()) if rows else None)


def sweep(spec, out=None, local=None, parallel=None, slurm=None, slurm_wait=True, retry_failed=False,
          quiet=True, frame=None):
    """Runs dvsim sweep on spec (a path to an .ini or .json spec, or the spec as a dict, the
    JSON form of docs/sweeps.md) into folder out (default: a new temporary folder) with one
    backend: local=N processes (the default: one per CPU), parallel=N or True (GNU parallel) or
    slurm=TASKS or True (a job array; slurm_wait: wait for it and merge; without it, None is
    returned: dvsim.load(out) after dvsim sweep --merge).  Returns load(out, frame).
    Jobs that failed are rows with status 'failed'; a bad spec or a failed backend raises
    DvsimError."""
    if out is None:
        out = tempfile.mkdtemp(prefix="dvsim-sweep-")
    os.makedirs(out, exist_ok=True)
    if isinstance(spec, dict):
        spec = dict(spec)
        spec["workloads"] = [dict(w, kernel=os.path.abspath(w["kernel"])) if "kernel" in w else w
                             for w in spec.get("workloads", [])]
        path = os.path.join(out, "spec.json")
        with open(path, "w") as f:
            json.dump(spec, f, indent=1)
        spec = path
    cmd = [executable(), "sweep", spec, "--out", out]
    if parallel:  # True: GNU parallel's own job count (dvsim's default, a job per CPU)
        cmd.append("--parallel" if parallel is True else f"--parallel={int(parallel)}")
    elif slurm:
        cmd += ["--slurm" if slurm is True else f"--slurm={int(slurm)}"] + (["--slurm-wait"] if slurm_wait else [])
    elif local:
        cmd += ["--local", str(local)]
    if retry_failed:
        cmd.append("--retry-failed")
    if quiet:
        cmd.append("--quiet")
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode not in (0, 1) or (p.returncode == 1 and not os.path.exists(os.path.join(out, "results.json"))):
        raise DvsimError(p.stderr.strip() or f"dvsim sweep exited {p.returncode}", p.returncode)
    if slurm and not slurm_wait:
        return None
    return load(out, frame)


def __getattr__(name):  # dvsim.plot, imported when first used (matplotlib is slow to load)
    if name == "plot":
        import importlib

        return importlib.import_module(".plot", __name__)
    raise AttributeError(name)
