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

  compare.py [--out DIR] [--budget SECONDS] [--kernels a,b]
             [--dry-run | --interpret-check]

--dry-run needs no GPU, torch or Triton: it reads the manifests and prints
the plan. --interpret-check needs torch and Triton but no GPU: on the CPU,
with Triton's interpreter (TRITON_INTERPRET=1), it checks every Triton
kernel against torch on small sizes that are not multiples of the blocks,
and the .bin reading and writing against the files of tile's reference
interpreter in kernels/NAME/io (docs/performance.md, "GPU bundle"). Runs
from the bundle (py/ next to bin/ and kernels/).
"""

import argparse
import ctypes
import json
import math
import os
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
    what a PyTorch user would run for it (default: reference). `dims` are
    the sizes timed on the GPU, `small` those of --interpret-check. `flops`
    (of the sizes), for a compute-bound kernel: its floating-point
    operations, reported as TFLOP/s of tile, torch and Triton."""

    def __init__(self, dims, small, reference, timed=None,
                 tolerance=(1e-4, 1e-5), note="", flops=None):
        self.dims, self.small, self.reference = dims, small, reference
        self.timed = timed or reference
        self.tolerance, self.note, self.flops = tolerance, note, flops


def squares_reference(t, d):
    # O[:, j] sums the squares of columns j, j + 64, ...: zero-pad K to a
    # multiple of 64 (tile's slices past K read zeros), fold it in chunks.
    x = t["X"]
    squares = torch.nn.functional.pad(x * x, (0, -d["K"] % 64))
    o = squares.view(16, -1, 64).sum(1)
    return {"O": o, "S": o.sum(1, keepdim=True)}


def rowmean_reference(t, d):
    chunks = torch.full((1, 1), -(-d["N"] // 64), dtype=torch.int32,
                        device=t["X"].device)
    return {"Mean": t["X"].mean(1, keepdim=True), "Chunks": chunks}


# Sizes: large enough to time. The single-CTA examples (fixed output tile)
# run on one SM of the GPU whatever the size; softmax is one [16, 64] tile.
# The small sizes are multiples of no block, ours (16 rows, 64 or 128
# columns, K by 32) or Triton's (1024 columns, 2048 for squares, K by 64),
# and span several of Triton's column blocks.
SPECS = {
    "rowscale": Spec({"M": 8192, "N": 8192}, {"M": 37, "N": 2500},
                     lambda t, d: {"Y": t["X"] * t["S"]}),
    "rowmean": Spec({"M": 8192, "N": 8192}, {"M": 37, "N": 2500},
                    rowmean_reference,
                    timed=lambda t, d: {"Mean": t["X"].mean(1, keepdim=True)},
                    note="torch times the mean only"),
    # 16384 chunks summed in order in f32 against torch's tree sum.
    "squares": Spec({"K": 1 << 20}, {"K": 4500}, squares_reference,
                    tolerance=(1e-3, 1e-3)),
    "softmax": Spec({}, {}, lambda t, d: {"Y": torch.softmax(t["X"], 1)}),
    "matmul": Spec({"K": 1 << 16}, {"K": 200},
                   lambda t, d: {"C": (t["A"].double() @ t["B"].double()).float()},
                   timed=lambda t, d: {"C": t["A"] @ t["B"]},
                   tolerance=(1e-3, 1e-2),
                   note="torch: f16 A @ B (cuBLAS, f16 result)"),
    # f16 in, f32 accumulated, f16 out: the result's rounding to f16 (half
    # an ulp, 2^-11 relative) is within rtol; the small sizes cross every
    # edge of tile's [128, 128] x 32 and of Triton's [128, 256] x 64.
    "gemm": Spec({"M": 4096, "N": 4096, "K": 4096},
                 {"M": 200, "N": 300, "K": 100},
                 lambda t, d: {"C": (t["A"].double() @ t["B"].double()).float()},
                 timed=lambda t, d: {"C": t["A"] @ t["B"]},
                 tolerance=(1e-3, 1e-2),
                 flops=lambda d: 2 * d["M"] * d["N"] * d["K"],
                 note="torch: f16 A @ B (cuBLAS, f16 result); triton: its "
                      "tutorial matmul, [128, 256] x 64, 8 warps, 3 stages"),
}


# The variants bench/pipelined makes of an example, as name suffixes.
VARIANTS = ("_pipelined", "_registers")


def base_name(name):
    """The example a kernel of bench/pipelined (NAME_pipelined,
    NAME_registers) is a variant of: it is checked and timed like it."""
    for variant in VARIANTS:
        if name.endswith(variant):
            return name.removesuffix(variant)
    return name


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
    integers otherwise; made on the generator's device."""
    tensors = {}
    for param in manifest["params"]:
        if "read" not in param["access"]:
            continue
        shape = tuple(shapes(manifest, dims)[param["name"]])
        dtype = torch_dtype(param["dtype"])
        if dtype.is_floating_point:
            value = torch.rand(shape, generator=generator,
                               device=generator.device) * 2 - 1
        else:
            value = torch.randint(-8, 9, shape, generator=generator,
                                  device=generator.device)
        tensors[param["name"]] = value.to(dtype).contiguous()
    return tensors


def write_bin(tensor, path):
    host = tensor.contiguous().cpu()
    path.write_bytes(ctypes.string_at(host.data_ptr(),
                                      host.numel() * host.element_size()))


def read_bin(path, dtype, shape, device):
    return torch.frombuffer(bytearray(path.read_bytes()), dtype=dtype) \
        .reshape(shape).to(device)


def read_params(directory, manifest, dims, access, device):
    """DIRECTORY/NAME.bin of every parameter whose access includes ACCESS
    ("read" or "write"), by name."""
    return {p["name"]: read_bin(directory / f"{p['name']}.bin",
                                torch_dtype(p["dtype"]),
                                shapes(manifest, dims)[p["name"]], device)
            for p in manifest["params"] if access in p["access"]}


def read_dims(path):
    """dims.txt as tile-run --write-io and run_tile write it: NAME=VALUE
    lines."""
    lines = (line.strip() for line in path.read_text().splitlines())
    return {name: int(value) for name, value in
            (line.split("=") for line in lines if line and line[0] != "#")}


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


class LaunchError(RuntimeError):
    """tile-launch exited non-zero: 2 a bad file or argument, 3 no driver or
    device, or a driver call failed (docs/abi.md)."""

    def __init__(self, returncode, output):
        super().__init__(f"tile-launch exit {returncode}:\n{output}")
        self.returncode, self.output = returncode, output


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
        raise LaunchError(run.returncode, run.stdout + run.stderr)
    device = next(iter(inputs.values())).device
    outputs = read_params(result, manifest, dims, "write", device)
    shutil.rmtree(scratch / name)
    return (*launch_report(run.stdout, name), outputs)


def launch_report(report, name):
    """(median ms, CTAs) from tile-launch's report: the `grid X x Y x Z, ...`
    line and the last column of the kernel's row (lib/Runtime/Report.cpp)."""
    lines = report.splitlines()
    row = next(line.split() for line in lines if line.split()[:1] == [name])
    grid = next(line for line in lines if line.startswith("grid "))
    return float(row[-1]), math.prod(int(n) for n in grid.split(",")[0].split()[1::2])


def ratio(a, b):
    return f"{a / b:.2f}" if a and b else "-"


def fmt(ms):
    return f"{ms:.4f}" if ms else "-"


def dry_run(kernels):
    print("compare.py --dry-run: the plan (no GPU, torch or Triton needed)")
    print(f"{'kernel':18} {'size':24} {'MB moved':>9}  params")
    for name, (_, manifest) in kernels.items():
        spec = SPECS.get(base_name(name))
        if spec is None:
            print(f"{name:18} no size or torch version in compare.py: skipped")
            continue
        missing = set(manifest["symbols"]) - set(spec.dims)
        if missing:
            raise SystemExit(f"{name}: no size for {sorted(missing)}")
        params = ", ".join(f"{p['name']}:{p['dtype']}{shapes(manifest, spec.dims)[p['name']]}"
                           for p in manifest["params"])
        print(f"{name:18} {size_text(manifest, spec.dims):24} "
              f"{traffic_bytes(manifest, spec.dims) / 1e6:>9.4g}  {params}")
    for name in sorted(set(SPECS) - set(kernels)):
        print(f"{name:18} has a torch version but no kernel in the bundle")
    return 0


def import_torch():
    """Imports torch as this module's `torch` (so that --dry-run needs
    none); returns why not, or None."""
    global torch
    try:
        import torch as torch_module
    except ImportError as error:
        return f"compare.py needs PyTorch: {error}"
    torch = torch_module
    return None


def import_triton_kernels():
    """(the triton_kernels module, None), or (None, why not)."""
    try:
        import triton_kernels
        return triton_kernels, None
    except Exception as error:  # ImportError, or a Triton that fails to load
        return None, f"{type(error).__name__}: {error}"


def triton_version(triton_kernels, reason):
    return triton_kernels.triton.__version__ if triton_kernels \
        else f"unavailable: {reason}"


def run_triton(triton_kernels, name, inputs, dims, reference, spec,
               timer=None):
    """Checks the Triton version of NAME against REFERENCE, then times it
    with TIMER if given: (ok, ms). A Triton error (a compile error, say) is
    a failed check, not the end of the run."""
    try:
        launch = getattr(triton_kernels, base_name(name))
        ok = check(launch(inputs, dims), reference, spec, "triton")
        return ok, timer(lambda: launch(inputs, dims)) if timer else None
    except Exception as error:
        print(f"  triton failed: {type(error).__name__}: {error}")
        return False, None


def new_row(name, manifest, dims):
    """A row of the table: nothing measured or checked yet."""
    return {"kernel": name, "size": size_text(manifest, dims),
            "bytes": traffic_bytes(manifest, dims), "ctas": None,
            "tile_ms": None, "tile_gbs": None, "tile_ok": False,
            "torch_ms": None, "triton_ms": None}


def print_table(rows, copy_gbs):
    header = (f"{'kernel':18} {'size':22} {'CTAs':>5} {'tile ms':>9} "
              f"{'torch ms':>9} {'triton ms':>9} {'/torch':>7} {'/triton':>8} "
              f"{'GB/s':>7} {'% copy':>7}  check")
    print("\n" + header + "\n" + "-" * len(header))
    for row in rows:
        gbs = row["tile_gbs"]
        checks = "tile " + ("ok" if row["tile_ok"] else "WRONG")
        if "triton_ok" in row:
            checks += ", triton " + ("ok" if row["triton_ok"] else "WRONG")
        print(f"{row['kernel']:18} {row['size']:22} {row['ctas'] or '-':>5} "
              f"{fmt(row['tile_ms']):>9} {fmt(row['torch_ms']):>9} "
              f"{fmt(row['triton_ms']):>9} "
              f"{ratio(row['tile_ms'], row['torch_ms']):>7} "
              f"{ratio(row['tile_ms'], row['triton_ms']):>8} "
              f"{f'{gbs:.0f}' if gbs else '-':>7} "
              f"{f'{100 * gbs / copy_gbs:.1f}%' if gbs and copy_gbs else '-':>7}"
              f"  {checks}")


def tflops(row, who):
    """TFLOP/s of WHO ("tile", "torch", "triton") in a row with flops."""
    ms = row[f"{who}_ms"]
    return row["flops"] / (ms * 1e-3) / 1e12 if ms else None


def print_throughput(rows):
    """The compute-bound kernels' TFLOP/s (rows with flops), tile's against
    torch's and Triton's; sets each row's *_tflops."""
    rows = [row for row in rows if row.get("flops")]
    if not rows:
        return
    print(f"\n{'kernel':18} {'size':22} {'tile TFLOP/s':>13} "
          f"{'torch TFLOP/s':>14} {'triton TFLOP/s':>15} {'% torch':>8} "
          f"{'% triton':>9}")
    for row in rows:
        for who in ("tile", "torch", "triton"):
            row[f"{who}_tflops"] = tflops(row, who)
        tile, torch_rate, triton_rate = (row[f"{who}_tflops"] for who in
                                         ("tile", "torch", "triton"))

        def rate(value):
            return f"{value:.1f}" if value else "-"

        def share(value):
            return f"{100 * tile / value:.1f}%" if tile and value else "-"
        print(f"{row['kernel']:18} {row['size']:22} {rate(tile):>13} "
              f"{rate(torch_rate):>14} {rate(triton_rate):>15} "
              f"{share(torch_rate):>8} {share(triton_rate):>9}")


def write_json(out, device, copy_gbs, rows, notes):
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "compare.json").write_text(json.dumps(
        {"device": device, "torch": torch.__version__, "copy_gbs": copy_gbs,
         "rows": rows, "notes": notes}, indent=1))


def compare(kernels, args, deadline):
    """The comparison on the GPU; 1 if a tile kernel mismatched."""
    if not torch.cuda.is_available():
        print("torch sees no CUDA device")
        return 3
    triton_kernels, triton_reason = import_triton_kernels()
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"CUDA {torch.version.cuda}, triton "
          f"{triton_version(triton_kernels, triton_reason)}")
    copy_gbs = copy_bandwidth()
    print(f"device-to-device copy: {copy_gbs:.0f} GB/s (1 GiB dst.copy_(src), "
          f"2 * bytes / median time)\n")

    generator = torch.Generator(device="cuda")
    generator.manual_seed(1)
    rows, notes, failed = [], [], False
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="tile-compare-"))
    try:
        for name, (directory, manifest) in kernels.items():
            spec = SPECS.get(base_name(name))
            left = deadline - time.monotonic()
            if spec is None or left < 20:
                why = "no torch version in compare.py" if spec is None else \
                    f"time budget spent ({args.budget:.0f} s)"
                print(f"{name}: skipped: {why}")
                notes.append(f"{name}: skipped: {why}")
                continue
            print(f"{name}: {size_text(manifest, spec.dims)}")
            row = new_row(name, manifest, spec.dims)
            inputs = make_inputs(manifest, spec.dims, generator)
            reference = spec.reference(inputs, spec.dims)
            try:
                row["tile_ms"], row["ctas"], outputs = run_tile(
                    args.launch, directory, manifest, spec.dims, inputs, scratch,
                    timeout=min(90, left))
                row["tile_gbs"] = row["bytes"] / (row["tile_ms"] * 1e-3) / 1e9
                row["tile_ok"] = check(outputs, reference, spec, "tile")
                del outputs
            # A failed launch, a missing or short output file, a report
            # not parsed: a row, not the end of the run.
            except (RuntimeError, OSError, ValueError, StopIteration,
                    subprocess.TimeoutExpired) as error:
                print(f"  tile failed: {error}")
            row["torch_ms"] = time_cuda(lambda: spec.timed(inputs, spec.dims))
            if triton_kernels is not None:
                row["triton_ok"], row["triton_ms"] = run_triton(
                    triton_kernels, name, inputs, spec.dims, reference, spec,
                    timer=time_cuda)
            if spec.flops:
                row["flops"] = spec.flops(spec.dims)
            failed |= not row["tile_ok"]
            if spec.note:
                notes.append(f"{name}: {spec.note}")
            rows.append(row)
            del inputs, reference
            torch.cuda.empty_cache()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    print_table(rows, copy_gbs)
    print_throughput(rows)
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
    write_json(args.out, torch.cuda.get_device_name(), copy_gbs, rows, notes)
    return 1 if failed else 0


def interpret_kernel(name, directory, manifest, spec, triton_kernels,
                     generator, scratch, launch):
    """--interpret-check of one kernel: its row, tile_ok and triton_ok set.

    On tile's files (kernels/NAME/io, from tile-run --backend=interp
    --write-io): the inputs as read_bin reads them, written back by
    write_bin, must be the same bytes; interp's outputs must match torch's
    reference on those inputs, and so must Triton's. Then on inputs made
    as on the GPU, at the small sizes: Triton against the reference, the
    timed torch expression must run, and run_tile's files and command must
    get tile-launch to the driver (exit 3 where there is no GPU; where one
    answers, its outputs must match)."""
    io = directory / "io"
    dims = read_dims(io / "dims.txt")
    inputs = read_params(io, manifest, dims, "read", "cpu")
    same = True
    for param, tensor in inputs.items():
        copy = scratch / f"{name}-{param}.bin"
        write_bin(tensor, copy)
        if copy.read_bytes() != (io / f"{param}.bin").read_bytes():
            print(f"  {param}.bin: written back, its bytes differ")
            same = False
    reference = spec.reference(inputs, dims)
    interp_ok = check(read_params(io / "expect", manifest, dims, "write", "cpu"),
                      reference, spec, "tile interp")
    io_ok, _ = run_triton(triton_kernels, name, inputs, dims, reference, spec)
    print(f"{name}: tile's io at {size_text(manifest, dims)}: "
          f".bin {'read and written back' if same else 'WRONG'}, "
          f"interp {'matches' if interp_ok else 'DIFFERS from'} torch, "
          f"triton {'matches' if io_ok else 'DIFFERS from'} torch")

    row = new_row(name, manifest, spec.small)
    inputs = make_inputs(manifest, spec.small, generator)
    reference = spec.reference(inputs, spec.small)
    spec.timed(inputs, spec.small)
    small_ok, _ = run_triton(triton_kernels, name, inputs, spec.small,
                             reference, spec)
    try:
        _, _, outputs = run_tile(launch, directory, manifest, spec.small,
                                 inputs, scratch, timeout=60)
        launched = check(outputs, reference, spec, "tile")
        tile = f"tile-launch ran, {'matches' if launched else 'DIFFERS from'} torch"
    except LaunchError as error:
        launched = error.returncode == 3
        tile = "tile-launch read the files, stopped at the driver" if launched \
            else f"tile-launch FAILED, exit {error.returncode}: {error.output.strip()}"
    print(f"{name}: {row['size']}: "
          f"triton {'matches' if small_ok else 'DIFFERS from'} torch; {tile}")
    row["tile_ok"] = same and interp_ok and launched
    row["triton_ok"] = io_ok and small_ok
    return row


def interpret_check(kernels, args):
    """--interpret-check: every kernel of the bundle on the CPU; 1 unless
    every check passed, and every kernel with a torch version has a Triton
    one. A kernel with no torch version is skipped, as the comparison on
    the GPU skips it, and named."""
    triton_kernels, triton_reason = import_triton_kernels()
    print("compare.py --interpret-check: on the CPU, Triton under its "
          "interpreter (no GPU)")
    print(f"torch {torch.__version__}, triton "
          f"{triton_version(triton_kernels, triton_reason)}")
    if triton_kernels is None:
        return 1
    generator = torch.Generator(device="cpu")
    generator.manual_seed(1)
    rows, skipped, failed = [], [], False
    with tempfile.TemporaryDirectory(prefix="tile-interpret-") as scratch:
        for name, (directory, manifest) in kernels.items():
            spec = SPECS.get(base_name(name))
            if spec is None:
                skipped.append(name)
                continue
            if not hasattr(triton_kernels, base_name(name)):
                print(f"{name}: WRONG: no Triton version in triton_kernels.py")
                failed = True
                continue
            row = interpret_kernel(name, directory, manifest, spec,
                                   triton_kernels, generator,
                                   pathlib.Path(scratch), args.launch)
            failed |= not (row["tile_ok"] and row["triton_ok"])
            rows.append(row)
    print_table(rows, None)
    notes = ["interpreter check: no times; tile ok: its .bin files read and "
             "written back, interp's outputs match torch, and tile-launch "
             "read compare.py's files"]
    print(f"note: {notes[0]}")
    write_json(args.out, "cpu (Triton interpreter)", None, rows, notes)
    if skipped:
        print(f"skipped, no torch version in compare.py (not compared on the "
              f"GPU either): {', '.join(skipped)}")
    print(f"interpret check: {len(rows)} of {len(kernels)} kernels checked: "
          + ("FAILED" if failed else "all match"))
    return 1 if failed else 0


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
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--dry-run", action="store_true",
                      help="print the plan; needs no GPU, torch or Triton")
    mode.add_argument("--interpret-check", action="store_true",
                      help="check Triton and the .bin files on the CPU")
    args = parser.parse_args()
    deadline = time.monotonic() + args.budget
    kernels = load_kernels(set(args.kernels.split(",")) if args.kernels else None)
    if args.dry_run:
        return dry_run(kernels)
    if args.interpret_check:
        # Read when triton_kernels is imported: its kernels run on the CPU.
        os.environ["TRITON_INTERPRET"] = "1"
    reason = import_torch()
    if reason:
        print(reason)
        return 1
    if args.interpret_check:
        return interpret_check(kernels, args)
    return compare(kernels, args, deadline)


if __name__ == "__main__":
    sys.exit(main())
