"""Element access with scalar indices, uniform or per-thread: tensors
(slices, gathers, scatters, elements), buffers and pipeline stages, parts
and elements of tile vars; each against numpy under the emulator (which
the reference interpreter checks) and the IR it must produce."""

import os
import shutil
import subprocess

import numpy as np
import pytest

import tile

F32, I32 = tile.f32, tile.i32


def run(kernel, *arrays):
    result = kernel(*arrays, backend="emulate")
    assert result.matched
    return result


# ---- tensors, per thread -------------------------------------------------

@tile.kernel(threads=64)
def per_thread_gathers(X: tile.tensor(F32, [128]), I: tile.tensor(I32, [64]),
                       Y: tile.tensor(F32, [64, 4]),
                       Out: tile.tensor(F32, [128])):
    tid = tile.thread_id()
    Y[tid, 0] = X[2 * tid]              # strided
    Y[tid, 1] = X[63 - tid]             # reversed
    Y[tid, 2] = X[I[tid] + 1]           # data-dependent
    Y[tid, 3] = X[tid * 2 + 1] + X[0]   # X[0]: a uniform element
    Out[2 * tid + 1] = tile.f32(tid)    # a strided scatter
    Out[2 * tid] = -1.0


def test_per_thread_gathers_and_scatters():
    X = np.arange(128, dtype=np.float32) + 10
    I = np.random.default_rng(3).permutation(64).astype(np.int32)
    Y = np.zeros((64, 4), np.float32)
    Out = np.zeros(128, np.float32)
    run(per_thread_gathers, X, I, Y, Out)
    t = np.arange(64)
    np.testing.assert_array_equal(Y[:, 0], X[2 * t])
    np.testing.assert_array_equal(Y[:, 1], X[63 - t])
    np.testing.assert_array_equal(Y[:, 2], X[I + 1])
    np.testing.assert_array_equal(Y[:, 3], X[2 * t + 1] + X[0])
    want = np.full(128, -1, np.float32)
    want[1::2] = t
    np.testing.assert_array_equal(Out, want)
    ir = per_thread_gathers.compile().mlir()
    assert "tile.gather" in ir and "tile.scatter" in ir
    # base + thread_id() stays a slice: X[tid] reads X[0 :+ 64].
    assert "tile.extract" in ir  # X[0]


@tile.kernel(threads=64)
def beside_slices(X: tile.tensor(F32, [64, 8]), I: tile.tensor(I32, [64]),
                  Rows: tile.tensor(F32, [64, 8]),
                  Cols: tile.tensor(F32, [8, 64]),
                  D: tile.tensor(F32, [64])):
    tid = tile.thread_id()
    Rows[tid, 0:8] = X[I[tid], 0:8]     # [64, 8]: a gather of rows
    Cols[0:8, tid] = tile.f32(tile.iota((8, 64), 0)) + X[0:1, 0:1]
    D[tid] = X[tid, tid % 8]            # two per-thread indices


def test_per_thread_index_beside_a_slice():
    X = np.arange(512, dtype=np.float32).reshape(64, 8)
    I = np.random.default_rng(4).permutation(64).astype(np.int32)
    Rows = np.zeros((64, 8), np.float32)
    Cols = np.zeros((8, 64), np.float32)
    D = np.zeros(64, np.float32)
    run(beside_slices, X, I, Rows, Cols, D)
    np.testing.assert_array_equal(Rows, X[I])
    np.testing.assert_array_equal(Cols, np.arange(8)[:, None] + X[0, 0] +
                                  np.zeros((8, 64)))
    t = np.arange(64)
    np.testing.assert_array_equal(D, X[t, t % 8])


@tile.kernel(threads=64)
def small_tensor(X: tile.tensor(F32, [16]), Y: tile.tensor(F32, [16]),
                 Z: tile.tensor(F32, [4, 4])):
    # 64 threads on 16 elements: the lanes past the end read 0 and are
    # dropped on store, as outside any tensor.
    tid = tile.thread_id()
    Y[tid] = X[tid] + 1.0
    Z[tid // 4, tid % 4] = X[15 - tid]


def test_more_lanes_than_elements():
    X = np.arange(16, dtype=np.float32)
    Y = np.zeros(16, np.float32)
    Z = np.zeros((4, 4), np.float32)
    run(small_tensor, X, Y, Z)
    np.testing.assert_array_equal(Y, X + 1)
    np.testing.assert_array_equal(Z.ravel(), X[::-1])


@tile.kernel(threads=32)
def elements(X: tile.tensor(F32, [4, 8]), N: tile.tensor(I32, [1]),
             Y: tile.tensor(F32, [4, 8])):
    n = N[0]                            # an element: a scalar
    if X[1, 2] > 5.0:                   # uniform, so an if may test it
        Y[0, 0] = X[1, 2] * 2.0
    for i in tile.range(0, tile.index(n)):
        Y[1, i] = X[3, i]
    Y[3, 7] += 1.0
    Y[2, n:n + 2] = X[0, n - 1:n + 1]   # i32 starts: converted to index
    Y[2, 7] = X[-1, 0] + 1.0            # -1 is outside X: it reads 0


def test_elements_of_tensors_are_scalars():
    X = np.arange(32, dtype=np.float32).reshape(4, 8)
    N = np.array([5], np.int32)
    Y = np.zeros((4, 8), np.float32)
    run(elements, X, N, Y)
    want = np.zeros((4, 8), np.float32)
    want[0, 0] = X[1, 2] * 2
    want[1, :5] = X[3, :5]
    want[3, 7] = 1
    want[2, 5:7] = X[0, 4:6]
    want[2, 7] = 1
    np.testing.assert_array_equal(Y, want)


@tile.kernel(threads=64)
def lookups(E: tile.tensor(F32, ["V", 16]), Ids: tile.tensor(I32, [8, 1]),
            Out: tile.tensor(F32, [8, 16]), L: tile.tensor(F32, [8, 1]),
            M: tile.tensor(F32, [8, 16])):
    rows = Ids[0:8, 0:1]
    Out[0:8, 0:16] = tile.load(E[rows, 0:16], other=-1.0)
    L[0:8, 0:1] = E[0:8, rows]          # one column per row
    tile.store(M[rows, 0:16], E[0:8, 0:16], mask=rows < 4)


def test_the_languages_gathers_with_index_tiles():
    E = np.arange(6 * 16, dtype=np.float32).reshape(6, 16)
    Ids = np.array([[5], [0], [2], [9], [1], [3], [4], [-1]], np.int32)
    Out = np.zeros((8, 16), np.float32)
    L = np.zeros((8, 1), np.float32)
    M = np.full((8, 16), 7, np.float32)
    run(lookups, E, Ids, Out, L, M)
    ids = Ids[:, 0]
    inside = (ids >= 0) & (ids < 6)
    want = np.where(inside[:, None], E[np.clip(ids, 0, 5)], -1)
    np.testing.assert_array_equal(Out, want)
    cols = np.where(ids < 16, ids, 0)
    np.testing.assert_array_equal(
        L[:, 0], np.where((ids >= 0) & (ids < 16),
                          np.pad(E, ((0, 2), (0, 0)))[np.arange(8), cols], 0))
    want = np.full((8, 16), 7, np.float32)
    for i, r in enumerate(ids):
        if 0 <= r < 4:
            want[r] = E[i]
    np.testing.assert_array_equal(M, want)


@tile.kernel(threads=64)
def masked_per_thread(X: tile.tensor(F32, [2, "N"]),
                      Y: tile.tensor(F32, [2, "N"])):
    tid = tile.thread_id()
    x = tile.load(X[1, 2 * tid], other=-5.0)
    tile.store(Y[0, 2 * tid], x, mask=tid % 3 == 0)


def test_load_other_and_store_mask_per_thread():
    X = np.arange(200, dtype=np.float32).reshape(2, 100)
    Y = np.zeros((2, 100), np.float32)
    run(masked_per_thread, X, Y)
    want = np.zeros((2, 100), np.float32)
    t = np.arange(64)
    x = np.where(2 * t < 100, X[1, np.minimum(2 * t, 99)], -5)
    keep = (t % 3 == 0) & (2 * t < 100)
    want[0, 2 * t[keep]] = x[keep]
    np.testing.assert_array_equal(Y, want)


@tile.kernel(threads=32)
def repeated_targets(X: tile.tensor(F32, [32]), Y: tile.tensor(F32, [32])):
    tid = tile.thread_id()
    Y[tid // 2] = X[tid]


def test_a_scatter_with_repeated_targets_is_a_fault():
    X = np.arange(32, dtype=np.float32)
    Y = np.zeros(32, np.float32)
    with pytest.raises(tile.KernelFault, match="scatter writes element") \
            as raised:
        repeated_targets(X, Y, backend="interp")
    assert "test_access.py:" in str(raised.value)
    assert "Y[tid // 2] = X[tid]" in str(raised.value)
    with pytest.raises(tile.KernelFault, match="race") as raised:
        repeated_targets(X, Y, backend="emulate", check=False)
    assert "test_access.py:" in str(raised.value)


# ---- buffers and pipeline stages -----------------------------------------

@tile.kernel(threads=64)
def buffers(X: tile.tensor(F32, [128]), I: tile.tensor(I32, [64]),
            Y: tile.tensor(F32, [64, 3]), S: tile.tensor(F32, [5]),
            W: tile.tensor(F32, [128])):
    tid = tile.thread_id()
    buf = tile.threadgroup_alloc("float", 128)
    tile.copy(X, buf, 128)
    tile.barrier()
    Y[tid, 0] = buf[tid + 64]           # a constant part, one a thread
    Y[tid, 1] = buf[I[tid]]             # a per-thread gather
    Y[tid, 2] = buf[2 * tid + 1] + buf[tid - 1] + buf[tid + 100]
    S[0] = buf[5]                       # a constant element
    for k in tile.range(0, 2):
        S[1 + k] = buf[k * 7 + 1]       # a uniform index the kernel computes
    S[3] = buf[tile.i32(128)]           # outside: 0
    S[4] = tile.rowsum(tile.reshape(buf[8:12], (1, 4)))[0, 0]
    out = tile.threadgroup_alloc("float", 128)
    out[0:64] = buf[64:128] * 2.0       # a constant part written
    out[I[tid] + 64] = tile.f32(tid)    # a per-thread scatter
    out[3] = -1.0
    out[tile.i32(4)] += 0.5             # a uniform one, updated
    tile.copy(out, W, 128)


def test_buffer_elements_parts_gathers_and_scatters():
    X = np.arange(128, dtype=np.float32) + 1
    I = np.random.default_rng(5).permutation(64).astype(np.int32)
    Y = np.zeros((64, 3), np.float32)
    S = np.zeros(5, np.float32)
    W = np.zeros(128, np.float32)
    run(buffers, X, I, Y, S, W)
    t = np.arange(64)
    np.testing.assert_array_equal(Y[:, 0], X[64:])
    np.testing.assert_array_equal(Y[:, 1], X[I])
    # A neighbour outside the buffer reads 0.
    np.testing.assert_array_equal(
        Y[:, 2], X[2 * t + 1] + np.where(t >= 1, X[t - 1], 0) +
        np.where(t + 100 < 128, X[np.minimum(t + 100, 127)], 0))
    np.testing.assert_array_equal(S, [X[5], X[1], X[8], 0, X[8:12].sum()])
    want = np.zeros(128, np.float32)
    want[:64] = X[64:] * 2
    want[I + 64] = t
    want[3] = -1
    want[4] += 0.5
    np.testing.assert_array_equal(W, want)
    ir = buffers.compile().mlir()
    assert "tile.extract_slice" in ir and "tile.insert_slice" in ir
    # buf[2 * tid + 1]: column 1 of the buffer as [64, 2] rows, no compares.
    assert "tensor<128xf32> -> tensor<64x2xf32>" in ir


@tile.kernel(threads=64)
def stage_elements(A: tile.tensor(F32, ["N"]), Out: tile.tensor(F32, [64])):
    tid = tile.thread_id()
    pipe = tile.pipeline("float", 64, stages=2)
    acc = tile.zeros((64,))
    for k in tile.range(0, A.shape[0], 64):
        tile.copy(A, pipe.front(), 64, src_offset=k)
        tile.barrier()
        acc += pipe.front()[63 - tid] + pipe.front()[0]
        tile.barrier()
        pipe.front()[tid] = 0.0
        pipe.advance()
    Out[tid] = acc


def test_pipeline_stage_elements():
    A = np.arange(256, dtype=np.float32)
    Out = np.zeros(64, np.float32)
    run(stage_elements, A, Out)
    a = A.reshape(4, 64)
    np.testing.assert_array_equal(Out, (a[:, ::-1] + a[:, :1]).sum(0))


# ---- tiles and tile vars ---------------------------------------------------

@tile.kernel(threads=64, registers=["acc"])
def parts(X: tile.tensor(F32, [16, 64]), Y: tile.tensor(F32, [16, 64]),
          S: tile.tensor(F32, [2])):
    acc = tile.zeros((16, 64))
    x = X[0:16, 0:64]
    acc[0:8, :] += x[8:16, :]           # whole rows: stays in registers
    acc[8:16, 0:64] = x[0:8, :] * 2.0
    Y[0:16, 0:64] = acc
    m = tile.rowmax(x)
    if m[0, 0] > 1000.0:                # a scalar out of a tile
        S[0] = 1.0
    else:
        S[0] = m[1, 0]
    S[1] = x[2, 3]


def test_parts_and_elements_of_tile_vars():
    X = np.random.default_rng(6).uniform(0, 100, (16, 64)).astype(np.float32)
    Y = np.zeros_like(X)
    S = np.zeros(2, np.float32)
    result = parts(X, Y, S, backend="emulate", remarks=True)
    want = np.concatenate([X[8:], X[:8] * 2])
    np.testing.assert_array_equal(Y, want)
    np.testing.assert_array_equal(S, [X[1].max(), X[2, 3]])
    assert [t["name"] for t in result.register_tiles] == ["acc"]
    updates = [r for r in result.remarks if "updated element by element" in r]
    assert len(updates) == 2 and "acc[0:8, :] += x[8:16, :]" in updates[0]


@tile.kernel(threads=32)
def element_of_var(Y: tile.tensor(F32, [2, 32])):
    acc = tile.zeros((2, 32))
    acc[1, 5] = 3.0
    acc[0, 0] -= 1.0
    Y[0:2, 0:32] = acc


def test_an_element_of_a_tile_var_assigned():
    Y = np.full((2, 32), 9, np.float32)
    run(element_of_var, Y)
    want = np.zeros((2, 32), np.float32)
    want[1, 5], want[0, 0] = 3, -1
    np.testing.assert_array_equal(Y, want)


# ---- errors ----------------------------------------------------------------

@tile.kernel(threads=64)
def mixed_lanes(X: tile.tensor(F32, [64, 64])):
    X[tile.thread_id(), tile.iota((32,), 0)] = 1.0


@tile.kernel(threads=64)
def float_index(X: tile.tensor(F32, [64]), Y: tile.tensor(F32, [64])):
    Y[tile.thread_id()] = X[tile.f32(tile.thread_id())]


@tile.kernel(threads=64)
def index_tile_rank(X: tile.tensor(F32, [64, 64])):
    X[tile.iota((4, 4, 4), 0), 0] = 1.0


@tile.kernel(threads=64)
def buffer_float_index(Y: tile.tensor(F32, [64])):
    buf = tile.threadgroup_alloc("float", 64)
    Y[tile.thread_id()] = buf[0.5]


@tile.kernel(threads=64)
def buffer_outside(Y: tile.tensor(F32, [1])):
    buf = tile.threadgroup_alloc("float", 64)
    Y[0] = buf[64]


@tile.kernel(threads=64)
def buffer_computed_slice(Y: tile.tensor(F32, [8]), n: tile.index):
    buf = tile.threadgroup_alloc("float", 64)
    Y[0:8] = buf[n:n + 8]


@tile.kernel(threads=64)
def scatter_shape(Y: tile.tensor(F32, [1])):
    buf = tile.threadgroup_alloc("float", 64)
    buf[2 * tile.thread_id()] = tile.zeros((2, 64))


@tile.kernel(threads=64)
def tile_slice_bounds(Y: tile.tensor(F32, [64]), n: tile.index):
    x = tile.zeros((64,))
    Y[0:64] = x[n:n + 8]


@pytest.mark.parametrize("kernel, message", [
    (mixed_lanes, "'X' is indexed per thread with indices of 32 and 64 "
                  "lanes"),
    (float_index, "a per-thread index is an i32 value, got <tile f32"),
    (index_tile_rank, "an index tile of 'X' has its rank, 2"),
    (buffer_float_index, "indexed with ':', a constant slice start:stop, a "
                         "constant, a uniform integer or a per-thread "
                         "index; got 0.5"),
    (buffer_outside, "the index 64 is outside dimension 0 of a "
                     r"tile<f32>\[64\]"),
    (buffer_computed_slice, "a slice of buffer .buf. has constant "
                            "bounds"),
    (scatter_shape, r"a per-thread value \(\[64\]\) or a scalar"),
    (tile_slice_bounds, "a slice of a tile has constant bounds"),
])
def test_access_errors(kernel, message):
    with pytest.raises(tile.CompileError, match=message) as error:
        kernel.compile()
    assert "test_access.py:" in str(error.value)


@tile.kernel(threads=32)
def computed_reads(X: tile.tensor(F32, [32]), Y: tile.tensor(F32, [32]),
                   Z: tile.tensor(F32, [4])):
    tid = tile.thread_id()
    buf = tile.threadgroup_alloc("float", 32)
    buf[:] = X[0:32]
    Y[tid] = buf[31 - tid]
    for k in tile.range(0, 4):
        Z[k] = buf[tile.i32(k)]


def test_computed_buffer_reads_are_exact():
    # -0.0, NaN and infinities read back bit for bit.
    X = np.array([-0.0, np.nan, np.inf, -np.inf] + list(range(28)),
                 np.float32)
    Y = np.zeros(32, np.float32)
    Z = np.zeros(4, np.float32)
    assert computed_reads(X, Y, Z, backend="emulate").matched
    np.testing.assert_array_equal(Y.view(np.int32), X[::-1].view(np.int32))
    np.testing.assert_array_equal(Z.view(np.int32), X[:4].view(np.int32))
    Y[:] = 0
    computed_reads(X, Y, Z, backend="interp", check=False)
    np.testing.assert_array_equal(Y.view(np.int32), X[::-1].view(np.int32))


# ---- atomics ---------------------------------------------------------------

@tile.kernel(threads=64, grid=4)
def atomics(X: tile.tensor(F32, [4, 64]), Bins: tile.tensor(I32, [4, 64]),
            Sum: tile.tensor(F32, [1, 64]), H: tile.tensor(I32, [8]),
            Top: tile.tensor(I32, [1, 64]), Low: tile.tensor(F32, [64])):
    b = tile.block_id(0)
    tid = tile.thread_id()
    tile.atomic_add(Sum[0:1, 0:64], X[b, 0:64])         # every CTA adds
    tile.atomic_add(H[Bins[b, tid]], 1)                 # a histogram
    tile.atomic_max(Top[0, tid], Bins[b, tid], mask=tid % 2 == 0)
    tile.atomic_min(Low[tid], X[b, tid])


def test_atomics_of_slices_per_thread_and_across_ctas():
    rng = np.random.default_rng(7)
    X = rng.integers(-50, 50, (4, 64)).astype(np.float32)
    Bins = rng.integers(0, 10, (4, 64)).astype(np.int32)   # 8, 9 dropped
    Sum = np.zeros((1, 64), np.float32)
    H = np.zeros(8, np.int32)
    Top = np.full((1, 64), -1, np.int32)
    Low = np.full(64, 100, np.float32)
    run(atomics, X, Bins, Sum, H, Top, Low)
    np.testing.assert_array_equal(Sum[0], X.sum(0))
    np.testing.assert_array_equal(H, np.bincount(Bins.ravel(),
                                                 minlength=10)[:8])
    top = np.where(np.arange(64) % 2 == 0, Bins.max(0), -1)
    np.testing.assert_array_equal(Top[0], top)
    np.testing.assert_array_equal(Low, X.min(0))
    assert atomics.compile().mlir().count("tile.atomic") == 4
    assert tile.BUILTINS["atomic_add"] is tile.atomic_add


@tile.kernel(threads=32)
def atomic_of_value(X: tile.tensor(F32, [32])):
    tile.atomic_add(X[0:32][0:4], 1.0)


def test_atomic_errors():
    with pytest.raises(tile.CompileError, match="the first argument of "
                                                "tile.atomic_add is a slice"):
        atomic_of_value.compile()


PTXAS = shutil.which("ptxas") or next(
    (p for p in ("/usr/local/cuda/bin/ptxas",) if os.path.exists(p)), None)


@pytest.mark.skipif(PTXAS is None, reason="needs ptxas (the CUDA toolkit)")
@pytest.mark.parametrize("kernel", [per_thread_gathers, beside_slices,
                                    buffers, stage_elements, atomics],
                         ids=lambda k: k.name)
def test_ptxas_takes_the_ptx(kernel, tmp_path):
    # The gathers, scatters, selects and atomics lower to PTX ptxas
    # assembles for the chip.
    path = tmp_path / (kernel.name + ".ptx")
    path.write_text(kernel.compile(chip="sm_90").ptx)
    subprocess.run([PTXAS, "-arch=sm_90", str(path), "-o",
                    str(tmp_path / "out.cubin")], check=True,
                   capture_output=True)


def computed_index_kernel(dtype):
    @tile.kernel(threads=32)
    def computed(X: tile.tensor(dtype, [32]), I: tile.tensor(I32, [32]),
                 Y: tile.tensor(dtype, [32]), Z: tile.tensor(dtype, [32])):
        tid = tile.thread_id()
        buf = tile.threadgroup_alloc(dtype, 32)
        buf[:] = X[0:32]
        Y[tid] = buf[I[tid]]
        out = tile.threadgroup_alloc(dtype, 32)
        out[I[tid]] = X[tid]
        out[tile.i32(0)] = buf[tile.i32(3)]
        Z[0:32] = out[:]
    return computed


@pytest.mark.parametrize("dtype", [tile.f16, tile.bf16, I32],
                         ids=lambda d: d.name)
def test_computed_buffer_indices_of_every_type(dtype):
    values = np.arange(32, dtype=np.float32) + 1
    X = (values.view(np.uint32) >> 16).astype(np.uint16) \
        if dtype == tile.bf16 else values.astype(dtype.numpy)
    I = np.random.default_rng(8).permutation(32).astype(np.int32)
    Y, Z = np.zeros_like(X), np.zeros_like(X)
    run(computed_index_kernel(dtype), X, I, Y, Z)
    np.testing.assert_array_equal(Y, X[I])
    want = np.zeros_like(X)
    want[I] = X
    want[0] = X[3]
    np.testing.assert_array_equal(Z, want)
