#!/usr/bin/env python3
"""Times every example kernel of the bundle at a realistic size against
PyTorch and a Triton kernel written the way Triton users write it.

For each kernel: inputs made with torch on the GPU are written as the .bin
files tile-launch reads (docs/abi.md); tile-launch runs the PTX and saves
the outputs, which must match torch's result; tile's time is tile-launch's
median, torch's and Triton's the median of the same kind of measurement
(one launch between two CUDA events, after warm-up). GB/s is the bytes the
kernel must read and write over tile's time, next to the device-to-device
copy bandwidth measured here (dst.copy_(src), 2 * bytes / time).

  compare.py [--out DIR] [--budget SECONDS] [--kernels a,b] [--dry-run]

--dry-run needs no GPU, torch or Triton: it reads the manifests and prints
the plan. Runs from the bundle (py/ next to bin/ and kernels/).
"""

import argparse
import ctypes
import json
import math
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
BUNDLE = HERE.parent
DTYPE_BYTES = {"f32": 4, "f16": 2, "bf16": 2, "i32": 4, "i1": 1}
WARMUP, RUNS = 5, 20
torch = None  # imported in main, so that --dry-run needs no torch


class Spec:
    """What one example computes, in torch. `reference` gives the exact
    outputs (by parameter name) that tile and Triton must match; `timed` is
    what a PyTorch user would run for it (default: reference)."""

    def __init__(self, dims, reference, timed=None, tolerance=(1e-4, 1e-5),
                 note=""):
        self.dims, self.reference = dims, reference
        self.timed = timed or reference
        self.tolerance, self.note = tolerance, note


def squares_reference(t, d):
    # O[:, j] sums the squares of columns j, j + 64, ...: zero-pad K to a
    # multiple of 64 (tile's slices past K read zeros), fold it in chunks.
    x = t["X"]
    squares = torch.nn.functional.pad(x * x, (0, -d["K"] % 64))
    o = squares.view(16, -1, 64).sum(1)
    return {"O": o, "S": o.sum(1, keepdim=True)}


def rowmean_reference(t, d):
    chunks = torch.full((1, 1), -(-d["N"] // 64), dtype=torch.int32,
                        device="cuda")
    return {"Mean": t["X"].mean(1, keepdim=True), "Chunks": chunks}


# Sizes: large enough to time. The single-CTA examples (fixed output tile)
# run on one SM of the GPU whatever the size; softmax is one [16, 64] tile.
SPECS = {
    "rowscale": Spec({"M": 8192, "N": 8192}, lambda t, d: {"Y": t["X"] * t["S"]}),
    "rowmean": Spec({"M": 8192, "N": 8192}, rowmean_reference,
                    timed=lambda t, d: {"Mean": t["X"].mean(1, keepdim=True)},
                    note="torch times the mean only"),
    # 16384 chunks summed in order in f32 against torch's tree sum.
    "squares": Spec({"K": 1 << 20}, squares_reference, tolerance=(1e-3, 1e-3)),
    "softmax": Spec({}, lambda t, d: {"Y": torch.softmax(t["X"], 1)}),
    "matmul": Spec({"K": 1 << 16},
                   lambda t, d: {"C": (t["A"].double() @ t["B"].double()).float()},
                   timed=lambda t, d: {"C": t["A"] @ t["B"]},
                   tolerance=(1e-3, 1e-2),
                   note="torch: f16 A @ B (cuBLAS, f16 result)"),
}


def load_kernels(selected):
    kernels = {}
    for manifest_path in sorted(BUNDLE.glob("kernels/*/*.json")):
        manifest = json.loads(manifest_path.read_text())
        name = manifest["kernel"]
        if selected and name not in selected:
            continue
        kernels[name] = (manifest_path.parent, manifest)
    return kernels


def shapes(manifest, dims):
    return {p["name"]: [d if isinstance(d, int) else dims[d] for d in p["shape"]]
            for p in manifest["params"]}


def traffic_bytes(manifest, dims):
    """Bytes the kernel must move: each read parameter once, each written
    one once (a readwrite one twice)."""
    total = 0
    for param in manifest["params"]:
        size = math.prod(shapes(manifest, dims)[param["name"]])
        size *= DTYPE_BYTES[param["dtype"]]
        total += size * (("read" in param["access"]) + ("write" in param["access"]))
    return total


def size_text(manifest, dims):
    """M=8192 N=8192, or the input shapes of a kernel with no symbols."""
    if dims:
        return " ".join(f"{k}={v}" for k, v in dims.items())
    return " ".join(f"{p['name']}[{','.join(map(str, p['shape']))}]"
                    for p in manifest["params"] if "read" in p["access"])


def torch_dtype(name):
    return {"f32": torch.float32, "f16": torch.float16,
            "bf16": torch.bfloat16, "i32": torch.int32, "i1": torch.bool}[name]


def make_inputs(manifest, dims, generator):
    """Uniform in [-1, 1) for floats (as tile-run makes them), small
    integers otherwise; made on the GPU."""
    tensors = {}
    for param in manifest["params"]:
        if "read" not in param["access"]:
            continue
        shape = shapes(manifest, dims)[param["name"]]
        dtype = torch_dtype(param["dtype"])
        if dtype.is_floating_point:
            value = torch.rand(tuple(shape), generator=generator,
                               device="cuda") * 2 - 1
        else:
            value = torch.randint(-8, 9, tuple(shape), generator=generator,
                                  device="cuda")
        tensors[param["name"]] = value.to(dtype).contiguous()
    return tensors


def write_bin(tensor, path):
    host = tensor.contiguous().cpu()
    path.write_bytes(ctypes.string_at(host.data_ptr(),
                                      host.numel() * host.element_size()))


def read_bin(path, dtype, shape):
    return torch.frombuffer(bytearray(path.read_bytes()), dtype=dtype) \
        .reshape(shape).cuda()


def time_cuda(fn):
    """Median ms of one call between two CUDA events, after warm-up: the
    measurement tile-launch makes."""
    for _ in range(WARMUP):
        fn()
    torch.cuda.synchronize()
    events = [(torch.cuda.Event(enable_timing=True),
               torch.cuda.Event(enable_timing=True)) for _ in range(RUNS)]
    for start, stop in events:
        start.record()
        fn()
        stop.record()
    torch.cuda.synchronize()
    return statistics.median(start.elapsed_time(stop) for start, stop in events)


def copy_bandwidth():
    """Device-to-device copy GB/s: the ceiling a streaming kernel can hope
    for on this device (reads and writes every byte once)."""
    src = torch.empty(1 << 28, dtype=torch.float32, device="cuda")  # 1 GiB
    dst = torch.empty_like(src)
    ms = time_cuda(lambda: dst.copy_(src))
    del src, dst
    torch.cuda.empty_cache()
    return 2 * (1 << 30) / (ms * 1e-3) / 1e9


def mismatch(got, want, tolerance):
    """None if got matches want, else how many differ and the first."""
    rtol, atol = tolerance
    if got.shape != want.shape:
        return f"shape {list(got.shape)}, want {list(want.shape)}"
    g, w = got.double(), want.double()
    if torch.allclose(g, w, rtol=rtol, atol=atol, equal_nan=True):
        return None
    bad = ((g - w).abs() > atol + rtol * w.abs()) | (g.isnan() != w.isnan())
    first = int(bad.flatten().nonzero()[0])
    return (f"{int(bad.sum())} of {w.numel()} differ; first at {first}: "
            f"got {g.flatten()[first].item():.6g}, "
            f"want {w.flatten()[first].item():.6g}")


def check(outputs, reference, spec, who):
    problems = [f"{name}: {m}" for name, want in reference.items()
                if (m := mismatch(outputs[name], want, spec.tolerance))]
    for problem in problems:
        print(f"  {who} WRONG {problem}")
    return not problems


def run_tile(launch, directory, manifest, dims, inputs, scratch, timeout):
    """tile-launch on the inputs; returns (ms, CTAs, outputs by name)."""
    name = manifest["kernel"]
    io, result = scratch / name / "in", scratch / name / "out"
    io.mkdir(parents=True)
    result.mkdir()
    for param_name, tensor in inputs.items():
        write_bin(tensor, io / f"{param_name}.bin")
    (io / "dims.txt").write_text("".join(f"{k}={v}\n" for k, v in dims.items()))
    command = [launch,
               str(directory / f"{name}.ptx"), str(directory / f"{name}.json"),
               "--inputs", str(io), "--output", str(result),
               "--warmup", str(WARMUP), "--runs", str(RUNS)]
    run = subprocess.run(command, capture_output=True, text=True,
                         timeout=timeout)
    if run.returncode != 0:
        raise RuntimeError(f"tile-launch exit {run.returncode}:\n"
                           f"{run.stdout}{run.stderr}")
    row = next(line.split() for line in run.stdout.splitlines()
               if line.split()[:1] == [name])
    grid = next(line for line in run.stdout.splitlines()
                if line.startswith("grid "))
    ctas = math.prod(int(n) for n in grid.split(",")[0].split()[1::2])
    outputs = {p["name"]: read_bin(result / f"{p['name']}.bin",
                                   torch_dtype(p["dtype"]),
                                   shapes(manifest, dims)[p["name"]])
               for p in manifest["params"] if "write" in p["access"]}
    shutil.rmtree(scratch / name)
    return float(row[-1]), ctas, outputs


def ratio(a, b):
    return f"{a / b:.2f}" if a and b else "-"


def fmt(ms):
    return f"{ms:.4f}" if ms else "-"


def dry_run(kernels):
    print("compare.py --dry-run: the plan (no GPU, torch or Triton needed)")
    print(f"{'kernel':10} {'size':24} {'MB moved':>9}  params")
    for name, (_, manifest) in kernels.items():
        spec = SPECS.get(name)
        if spec is None:
            print(f"{name:10} no size or torch version in compare.py: skipped")
            continue
        missing = set(manifest["symbols"]) - set(spec.dims)
        if missing:
            raise SystemExit(f"{name}: no size for {sorted(missing)}")
        params = ", ".join(f"{p['name']}:{p['dtype']}{shapes(manifest, spec.dims)[p['name']]}"
                           for p in manifest["params"])
        print(f"{name:10} {size_text(manifest, spec.dims):24} "
              f"{traffic_bytes(manifest, spec.dims) / 1e6:>9.4g}  {params}")
    for name in sorted(set(SPECS) - set(kernels)):
        print(f"{name:10} has a torch version but no kernel in the bundle")
    return 0


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=str(BUNDLE / "out"),
                        help="where compare.json goes")
    parser.add_argument("--budget", type=float, default=220,
                        help="seconds; kernels left when it runs out are skipped")
    parser.add_argument("--kernels", help="comma-separated names (default: all)")
    parser.add_argument("--launch", default=str(BUNDLE / "bin" / "tile-launch"),
                        help="the tile-launch to run")
    parser.add_argument("--dry-run", action="store_true")
    args = parser.parse_args()
    deadline = time.monotonic() + args.budget
    kernels = load_kernels(set(args.kernels.split(",")) if args.kernels else None)
    if args.dry_run:
        return dry_run(kernels)

    global torch
    try:
        import torch as torch_module
    except ImportError as error:
        print(f"compare.py needs PyTorch: {error}")
        return 1
    torch = torch_module
    if not torch.cuda.is_available():
        print("torch sees no CUDA device")
        return 3
    try:
        import triton_kernels
        triton_reason = None
    except Exception as error:  # ImportError, or a Triton that fails to load
        triton_kernels, triton_reason = None, f"{type(error).__name__}: {error}"
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"CUDA {torch.version.cuda}, triton "
          f"{triton_kernels.triton.__version__ if triton_kernels else 'unavailable: ' + triton_reason}")
    copy_gbs = copy_bandwidth()
    print(f"device-to-device copy: {copy_gbs:.0f} GB/s (1 GiB dst.copy_(src), "
          f"2 * bytes / median time)\n")

    generator = torch.Generator(device="cuda")
    generator.manual_seed(1)
    rows, notes, failed = [], [], False
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="tile-compare-"))
    try:
        for name, (directory, manifest) in kernels.items():
            spec = SPECS.get(name)
            left = deadline - time.monotonic()
            if spec is None or left < 20:
                why = "no torch version in compare.py" if spec is None else \
                    f"time budget spent ({args.budget:.0f} s)"
                print(f"{name}: skipped: {why}")
                notes.append(f"{name}: skipped: {why}")
                continue
            print(f"{name}: {size_text(manifest, spec.dims)}")
            row = {"kernel": name, "size": size_text(manifest, spec.dims),
                   "bytes": traffic_bytes(manifest, spec.dims)}
            inputs = make_inputs(manifest, spec.dims, generator)
            reference = spec.reference(inputs, spec.dims)
            try:
                row["tile_ms"], row["ctas"], outputs = run_tile(
                    args.launch, directory, manifest, spec.dims, inputs, scratch,
                    timeout=min(90, left))
                row["tile_ok"] = check(outputs, reference, spec, "tile")
                del outputs
            except (RuntimeError, subprocess.TimeoutExpired, StopIteration) as error:
                print(f"  tile failed: {error}")
                row["tile_ms"], row["ctas"], row["tile_ok"] = None, None, False
            row["torch_ms"] = time_cuda(lambda: spec.timed(inputs, spec.dims))
            row["triton_ms"] = None
            if triton_kernels is not None:
                try:
                    launch = getattr(triton_kernels, name)
                    row["triton_ok"] = check(launch(inputs, spec.dims), reference,
                                             spec, "triton")
                    row["triton_ms"] = time_cuda(lambda: launch(inputs, spec.dims))
                except Exception as error:  # a Triton compile error is a row, not the end
                    print(f"  triton failed: {type(error).__name__}: {error}")
                    row["triton_ok"] = False
            failed |= not row["tile_ok"]
            if spec.note:
                notes.append(f"{name}: {spec.note}")
            rows.append(row)
            del inputs, reference
            torch.cuda.empty_cache()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    header = (f"{'kernel':10} {'size':22} {'CTAs':>5} {'tile ms':>9} "
              f"{'torch ms':>9} {'triton ms':>9} {'/torch':>7} {'/triton':>8} "
              f"{'GB/s':>7} {'% copy':>7}  check")
    print("\n" + header + "\n" + "-" * len(header))
    for row in rows:
        gbs = row["bytes"] / (row["tile_ms"] * 1e-3) / 1e9 if row["tile_ms"] else None
        checks = "tile " + ("ok" if row["tile_ok"] else "WRONG")
        if "triton_ok" in row:
            checks += ", triton " + ("ok" if row["triton_ok"] else "WRONG")
        row["tile_gbs"] = gbs
        print(f"{row['kernel']:10} {row['size']:22} {row['ctas'] or '-':>5} "
              f"{fmt(row['tile_ms']):>9} {fmt(row['torch_ms']):>9} "
              f"{fmt(row['triton_ms']):>9} "
              f"{ratio(row['tile_ms'], row['torch_ms']):>7} "
              f"{ratio(row['tile_ms'], row['triton_ms']):>8} "
              f"{gbs or 0:>7.0f} {100 * (gbs or 0) / copy_gbs:>6.1f}%  {checks}")
    single = [row["kernel"] for row in rows if row["ctas"] == 1]
    if single:
        notes.append(f"single-CTA kernels (one SM of the GPU, a fixed output "
                     f"tile; at small sizes launch-latency bound): "
                     f"{', '.join(single)}")
    if triton_kernels is None:
        notes.append(f"Triton not timed: {triton_reason}")
    notes.append("ms: median of one launch between two CUDA events after "
                 f"{WARMUP} warm-up launches, {RUNS} timed; /torch, /triton: "
                 "tile's time over theirs (below 1: tile is faster); GB/s: "
                 "bytes read + written by tile's kernel over tile's time")
    for note in notes:
        print(f"note: {note}")
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "compare.json").write_text(json.dumps(
        {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
         "copy_gbs": copy_gbs, "rows": rows, "notes": notes}, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
