"""The per-thread API (tile.threads): register tensors, copies, pipelines,
per-thread code; the three seed kernels (examples/python/seed_*.py)
against numpy."""

import os

import numpy as np
import pytest

import tile
from conftest import ROOT, example



def test_seed_module_is_a_deprecated_alias_of_threads():
    """Code that imports the per-thread API under its old name keeps
    working, warned: `tile.seed` is the module `tile.threads`."""
    import importlib
    import sys
    sys.modules.pop("tile.seed", None)
    with pytest.warns(DeprecationWarning, match="tile.threads"):
        seed = importlib.import_module("tile.seed")
    assert seed is tile.threads
    from tile.seed import register_tensor, thread_id
    assert thread_id is tile.thread_id
    assert register_tensor is tile.threads.register_tensor


@pytest.mark.parametrize("name", ["seed_registers", "seed_copy",
                                  "seed_pipeline"])
def test_seed_kernels_match_numpy(name, capsys):
    example(name).main()
    assert "matches numpy" in capsys.readouterr().out


@pytest.mark.parametrize("N", [1, 128, 130])
def test_seed_registers_under_emulate(N):
    """Seed 003's register-tensor kernel on the emulator (the examples'
    main() takes backend="auto", a GPU where there is one), both layouts
    against numpy; test_copy_edges and test_pipeline_rotates_every_iteration
    run the other two under emulate."""
    module = example("seed_registers")
    rng = np.random.default_rng(N)
    a = rng.uniform(-1, 1, (N, 8, module.K)).astype(np.float32)
    b = rng.uniform(-1, 1, (N, module.K, 8)).astype(np.float32)
    want = a.astype(np.float64) @ b.astype(np.float64)
    C = np.zeros((8, 8, N), np.float32)
    result = module.batched_matmul(
        np.ascontiguousarray(np.moveaxis(a, 0, -1)),
        np.ascontiguousarray(np.moveaxis(b, 0, -1)), C, backend="emulate")
    assert result.backend == "emulate" and result.matched
    np.testing.assert_allclose(np.moveaxis(C, -1, 0), want, rtol=1e-5,
                               atol=1e-5)
    C = np.zeros((N, 8, 8), np.float32)
    assert module.batched_matmul_aos(a, b, C, backend="emulate").matched
    np.testing.assert_allclose(C, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("N", [256, 257, 999])
def test_copy_edges(N):
    module = example("seed_copy")
    A = np.arange(N, dtype=np.float32)
    B = np.full(N, -1, np.float32)
    module.scale(A, B, backend="emulate")
    np.testing.assert_array_equal(B, A * 2)


@pytest.mark.parametrize("N", [256, 512 + 1, 256 * 7])
def test_pipeline_rotates_every_iteration(N):
    module = example("seed_pipeline")
    A = np.random.default_rng(N).uniform(-1, 1, N).astype(np.float32)
    Out = np.zeros(256, np.float32)
    module.tile_sums(A, Out, backend="emulate")
    padded = np.zeros(-(-N // 256) * 256)
    padded[:N] = A
    np.testing.assert_allclose(Out, padded.reshape(-1, 256).sum(0),
                               rtol=1e-5, atol=1e-5)


def test_register_tensor_elements_are_register_tiles():
    module = example("seed_registers")
    compiled = module.batched_matmul.compile()
    tiles = {t["name"]: t for t in compiled.manifest["registers"]}
    assert len(tiles) == 64 and tiles["acc_3_5"]["slots"] == 1
    # The loop over k carries the accumulators in registers.
    assert "iter_args" in compiled.mlir("tile-promote-registers")


@tile.kernel(threads=64)
def per_thread(X: tile.tensor(tile.f32, [64]), Y: tile.tensor(tile.f32, [64]),
               T: tile.tensor(tile.i32, [64])):
    tid = tile.thread_id()
    assert tile.num_threads() == 64  # a Python int
    x = X[tid]
    Y[tid] = tile.where(tid < 32, x * 2.0, x - tile.f32(tid))
    T[tid] = tid * 3 + 1


@tile.kernel(threads=64)
def reversed_index(X: tile.tensor(tile.f32, [64]),
                   Y: tile.tensor(tile.f32, [64])):
    Y[tile.thread_id()] = X[63 - tile.thread_id()]


def test_per_thread_values():
    X = np.arange(64, dtype=np.float32)
    Y = np.zeros(64, np.float32)
    T = np.zeros(64, np.int32)
    per_thread(X, Y, T, backend="emulate")
    t = np.arange(64)
    np.testing.assert_array_equal(T, t * 3 + 1)
    np.testing.assert_array_equal(Y, np.where(t < 32, X * 2, X - t))
    # 63 - t has scale -1: a gather (test_access.py has the others).
    reversed_index(X, Y, backend="emulate")
    np.testing.assert_array_equal(Y, X[::-1])
    assert "tile.gather" in reversed_index.compile().mlir()


@tile.kernel(threads=64)
def masked(X: tile.tensor(tile.f32, [64]), Y: tile.tensor(tile.f32, [64])):
    tid = tile.thread_id()
    buf = tile.threadgroup_alloc("float", 64)
    tile.copy(X, buf, 64, mask_fn=lambda i: i % 2 == 0)
    Y[tid] = buf[tid]


def test_masked_copy_keeps_the_rest():
    X = np.arange(1, 65, dtype=np.float32)
    Y = np.full(64, -1, np.float32)
    masked(X, Y, backend="emulate")
    want = np.where(np.arange(64) % 2 == 0, X, 0)  # buffers start as zeros
    np.testing.assert_array_equal(Y, want)


@tile.kernel(threads=64)
def copies(X: tile.tensor(tile.f32, [128]), Y: tile.tensor(tile.f32, [128])):
    tile.copy(X, Y, count=64, src_offset=64, dst_offset=0, coalesced_width=4)
    tile.copy(X, Y, count=64, src_offset=0, dst_offset=64)


def test_tensor_to_tensor_copy():
    X = np.arange(128, dtype=np.float32)
    Y = np.zeros(128, np.float32)
    copies(X, Y, backend="emulate")
    np.testing.assert_array_equal(Y, np.concatenate([X[64:], X[:64]]))


@tile.kernel(threads=64)
def bad_width(X: tile.tensor(tile.f32, [64]), Y: tile.tensor(tile.f32, [64])):
    tile.copy(X, Y, 64, coalesced_width=3)


@tile.kernel(threads=64)
def bad_register_index(Y: tile.tensor(tile.f32, [64])):
    acc = tile.register_tensor((2, 2))
    Y[tile.thread_id()] = acc[2, 0]


@tile.kernel(threads=64)
def traced_register_index(Y: tile.tensor(tile.f32, [64])):
    acc = tile.register_tensor((2,))
    for i in tile.range(0, 2):
        Y[tile.thread_id()] = acc[i]


@tile.kernel(threads=64)
def partial_buffer(X: tile.tensor(tile.f32, [64]), Y: tile.tensor(tile.f32,
                                                                  [128])):
    buf = tile.threadgroup_alloc("float", 128)
    tile.copy(X, buf, 64, dst_offset=32, coalesced_width=4)
    tile.barrier()
    tile.copy(buf, Y, 128)


@tile.kernel(threads=64)
def misaligned(X: tile.tensor(tile.f32, [64])):
    buf = tile.threadgroup_alloc("float", 128)
    tile.copy(X, buf, 64, dst_offset=2, coalesced_width=4)


def test_copies_are_tile_copy():
    X = np.arange(1, 65, dtype=np.float32)
    Y = np.full(128, -1, np.float32)
    partial_buffer(X, Y, backend="emulate")
    want = np.zeros(128, np.float32)
    want[32:96] = X
    np.testing.assert_array_equal(Y, want)
    ir = partial_buffer.compile().mlir()
    assert ir.count("tile.copy") == 2 and "width = 4" in ir
    assert "tile.barrier {requested}" in ir
    assert "storage = #tile.storage<shared>" in ir


def test_pipeline_is_a_ring():
    ir = example("seed_pipeline").tile_sums.compile().mlir()
    assert "stages = 3" in ir and "tile.stage" in ir
    # advance() turns the ring: a rotation count, not copies of stages.
    assert 'tile.var "pipe.rotation"' in ir


@tile.kernel(threads=64)
def masked_into_tensor(X: tile.tensor(tile.f32, [200]),
                       Y: tile.tensor(tile.f32, [200])):
    # 128 elements with 64 threads: the element index is iota([128]).
    tile.copy(X, Y, 128, src_offset=8, dst_offset=2,
              mask_fn=lambda i: (i < 3) | (i >= 120))


def test_masked_copy_into_a_tensor():
    X = np.arange(200, dtype=np.float32)
    Y = np.full(200, -1, np.float32)
    masked_into_tensor(X, Y, backend="emulate")
    want = np.full(200, -1, np.float32)
    i = np.arange(128)
    keep = (i < 3) | (i >= 120)
    want[2 + i[keep]] = X[8 + i[keep]]
    np.testing.assert_array_equal(Y, want)


@tile.kernel(threads=64)
def one_stage(X: tile.tensor(tile.f32, [64])):
    tile.pipeline("float", 64, stages=1)


@pytest.mark.parametrize("kernel, message", [
    (bad_width, "coalesced_width is 1, 2, 4 or 8, got 3"),
    (bad_register_index, "indexed with compile-time constants in range, got "
                         r"\(2, 0\)"),
    (traced_register_index, "indexed with compile-time constants"),
    (misaligned, "offset"),
    (one_stage, "a pipeline has at least 2 stages, got 1"),
])
def test_per_thread_api_errors(kernel, message):
    with pytest.raises(tile.CompileError, match=message):
        kernel.compile()


def test_barrier_and_thread_id_outside_a_kernel():
    with pytest.raises(tile.Error, match="tile.barrier can only be used"):
        tile.barrier()
    with pytest.raises(tile.Error, match="tile.thread_id can only be used"):
        tile.thread_id()


@tile.kernel(threads=64)
def rows2d(X: tile.tensor(tile.f32, [4, 64]), Y: tile.tensor(tile.f32, [4, 64])):
    tid = tile.thread_id()
    acc = tile.register_tensor((4,), fill=0.0)
    for r in range(4):
        acc[r] = X[r, tid] * 2.0    # a [1, 64] slice, reshaped to [64]
    for r in range(4):
        Y[3 - r, tid] = acc[r]      # and back


@tile.kernel(threads=64)
def two_thread_indices(X: tile.tensor(tile.f32, [64, 64])):
    tid = tile.thread_id()
    X[tid, tid] = 1.0


def test_per_thread_access_of_any_rank():
    X = np.arange(256, dtype=np.float32).reshape(4, 64)
    Y = np.zeros_like(X)
    rows2d(X, Y, backend="emulate")
    np.testing.assert_array_equal(Y, X[::-1] * 2)
    assert "tile.reshape" in rows2d.compile().mlir()
    # Two per-thread indices: a scatter to the diagonal.
    X = np.zeros((64, 64), np.float32)
    two_thread_indices(X, backend="emulate")
    np.testing.assert_array_equal(X, np.eye(64))


@tile.kernel(threads=64)
def register_update_in_if(X: tile.tensor(tile.f32, [64])):
    tid = tile.thread_id()
    acc = tile.register_tensor((2,), dtype="float", fill=1.0)
    if X[0] > 0.0:
        acc[1] = X[tid]
    X[tid] = acc[1]


def test_a_rejected_register_tensor_points_at_its_lines():
    with pytest.raises(tile.CompileError) as raised:
        register_update_in_if.compile()
    message = str(raised.value)
    assert "'acc_1' is updated inside an if" in message
    assert "test_threads.py:" in message.splitlines()[0]
    assert "acc[1] = X[tid]" in message       # the update, with a caret
    # and a note at the declaration, the register_tensor line.
    assert "acc = tile.register_tensor((2,)" in message


@tile.kernel(threads=64)
def seed_spellings(X: tile.tensor(tile.f32, [256]), Y: tile.tensor(tile.f32, [64]),
                   I: tile.tensor(tile.i32, [64]), H: tile.tensor(tile.f16, [64])):
    tid = tile.thread_id()
    acc = tile.register_tensor(2, dtype="float", fill=0.5)   # shape an int
    for k in tile.for_range(0, 4):                            # for, not with
        acc[0] = tile.fma(X[k * 64 + tid], 2.0, acc[0])
    for k in tile.static_range(2):
        acc[1] += tile.f32(k)
    Y[tid] = acc[0] + acc[1]
    counts = tile.register_tensor((1,), dtype="int", fill=3)
    I[tid] = counts[0] * tile.i32(tile.lanes()) + tile.num_threads()
    halves = tile.threadgroup_alloc("half", 64)
    halves[tid] = tile.f16(tid)
    H[tid] = halves[tid]


def test_per_thread_spellings_and_aliases():
    X = np.arange(256, dtype=np.float32)
    Y = np.zeros(64, np.float32)
    I = np.zeros(64, np.int32)
    H = np.zeros(64, np.float16)
    seed_spellings(X, Y, I, H, backend="emulate")
    np.testing.assert_allclose(Y, 0.5 + 2 * X.reshape(4, 64).sum(0) + 1.5,
                               rtol=1e-6)
    np.testing.assert_array_equal(I, 3 * 32 + 64)
    np.testing.assert_array_equal(H, np.arange(64))


@tile.kernel(threads=64)
def stage_out_of_range(X: tile.tensor(tile.f32, [64])):
    pipe = tile.pipeline("float", 64, stages=2)
    tile.copy(X, pipe.stage(2), 64)


@tile.kernel(threads=64)
def bad_buffer_size(X: tile.tensor(tile.f32, [64])):
    tile.threadgroup_alloc("float", 0)


@tile.kernel(threads=64)
def bad_register_shape(X: tile.tensor(tile.f32, [64])):
    tile.register_tensor((2, -1))


@tile.kernel(threads=64)
def bad_dtype(X: tile.tensor(tile.f32, [64])):
    tile.threadgroup_alloc("double", 64)


@tile.kernel(threads=64)
def copy_2d(X: tile.tensor(tile.f32, [8, 8])):
    buf = tile.threadgroup_alloc("float", 64)
    tile.copy(X, buf, 64)


@tile.kernel(threads=64)
def copy_of_a_value(X: tile.tensor(tile.f32, [64])):
    buf = tile.threadgroup_alloc("float", 64)
    tile.copy(X[0:64] * 2.0, buf, 64)


@tile.kernel(threads=64)
def count_of_a_slice(X: tile.tensor(tile.f32, [64])):
    buf = tile.threadgroup_alloc("float", 64)
    tile.copy(X[0:64], buf, 64)


@tile.kernel(threads=64)
def zero_count(X: tile.tensor(tile.f32, [64])):
    buf = tile.threadgroup_alloc("float", 64)
    tile.copy(X, buf, 0)


@tile.kernel(threads=64)
def buffer_out_of_scope(X: tile.tensor(tile.f32, [64])):
    for k in tile.range(0, 2):
        buf = tile.threadgroup_alloc("float", 64)
    X[tile.thread_id()] = buf[tile.thread_id()]


@pytest.mark.parametrize("kernel, message", [
    (stage_out_of_range, "pipeline 'pipe' has stages 0 to 1, got 2"),
    (bad_buffer_size, r"a buffer's size is a positive int \(or a shape, a "
                      r"tuple of them\), got 0"),
    (bad_register_shape, "a register tensor's shape is a tuple of positive "
                         r"ints, got \(2, -1\)"),
    (bad_dtype, "'double' is not a tile element type"),
    (copy_2d, "copy from 'X': the flat copy of count elements moves "
              r"elements of 1-D tensors and buffers; copy a slice of it"),
    (count_of_a_slice, "with count, a side is a whole 1-D tensor, buffer or "
                       "stage"),
    (copy_of_a_value, "copy from <tile f32\\[64\\]>: a tensor parameter, a "
                      "buffer or a pipeline stage"),
    (zero_count, "a copy's count is a positive int, got 0"),
    (buffer_out_of_scope, "buffer 'buf' was made inside a loop or if that "
                          "has ended"),
])
def test_more_per_thread_api_errors(kernel, message):
    with pytest.raises(tile.CompileError, match=message) as raised:
        kernel.compile()
    assert "test_threads.py:" in str(raised.value)


@tile.kernel(threads=64)
def data_masks(A: tile.tensor(tile.f32, [128]), B: tile.tensor(tile.f32, [128]),
               C: tile.tensor(tile.f32, [128])):
    buf = tile.threadgroup_alloc("float", 128)
    # The predicate reads the source per element (i is the element index).
    tile.copy(A, buf, 128, mask_fn=lambda i: A[i] > 0.0)
    tile.barrier()
    tile.copy(buf, B, 128, coalesced_width=2)
    tile.copy(A, C, 128, mask_fn=lambda i: True)


def test_mask_fn_reads_data_and_may_be_constant():
    A = np.random.default_rng(9).uniform(-1, 1, 128).astype(np.float32)
    B = np.full(128, 5, np.float32)
    C = np.zeros(128, np.float32)
    data_masks(A, B, C, backend="emulate")
    np.testing.assert_array_equal(B, np.where(A > 0, A, 0))
    np.testing.assert_array_equal(C, A)


@tile.kernel(threads=64)
def async_ring(A: tile.tensor(tile.f32, ["N"]),
               S: tile.tensor(tile.f32, [256])):
    # The language's ring with async copies (test/Frontend/copy.tile's
    # `ring`), in seed 003's flat form.
    pipe = tile.pipeline("float", 256, stages=3)
    tile.copy(A, pipe.stage(0), 256, coalesced_width=4, async_=True)
    tile.commit_group()
    tile.copy(A, pipe.stage(1), 256, src_offset=256, coalesced_width=4,
              async_=True)
    tile.commit_group()
    acc = tile.zeros((256,))
    for k in tile.range(0, A.shape[0], 256):
        tile.wait_group(1)
        tile.barrier()
        acc += pipe.front()[:]
        tile.copy(A, pipe.back(), 256, src_offset=k + 512,
                  coalesced_width=4, async_=True)
        tile.commit_group()
        pipe.advance()
    tile.wait_group(0)
    S[0:256] = acc


@pytest.mark.parametrize("N", [256, 256 * 5 + 64])
def test_async_copies_into_a_ring(N):
    A = np.random.default_rng(N).uniform(-1, 1, N).astype(np.float32)
    S = np.zeros(256, np.float32)
    async_ring(A, S, backend="emulate")
    padded = np.zeros(-(-N // 256) * 256, np.float32)
    padded[:N] = A
    np.testing.assert_allclose(S, padded.reshape(-1, 256).sum(0),
                               rtol=1e-5, atol=1e-5)
    ir = async_ring.compile().mlir()
    assert "async" in ir and ir.count("tile.commit_group") == 3
    assert "tile.wait_group 1" in ir and "tile.wait_group 0" in ir


@tile.kernel(threads=64)
def async_between_tensors(A: tile.tensor(tile.f32, [64]),
                          B: tile.tensor(tile.f32, [64])):
    tile.copy(A, B, 64, async_=True)


@tile.kernel(threads=64)
def wait_too_many(A: tile.tensor(tile.f32, [64])):
    tile.wait_group(8)


@pytest.mark.parametrize("kernel, message", [
    (async_between_tensors, "an asynchronous copy goes into a buffer or a "
                            "pipeline stage"),
    (wait_too_many, r"wait_group\(N\) leaves N groups of async copies in "
                    "flight, an integer from 0 to 7"),
])
def test_async_errors(kernel, message):
    with pytest.raises(tile.CompileError, match=message) as raised:
        kernel.compile()
    assert "test_threads.py:" in str(raised.value)


# The language's copies in Python: 2-D buffers and rings, slices of
# tensors and parts of buffers as sides, 2-D masks, width 8 of f16.


@tile.kernel(threads=128)
def buffers_2d(X: tile.tensor(tile.f32, [16, "N"]),
               Y: tile.tensor(tile.f32, [16, 64]),
               Z: tile.tensor(tile.f32, [8, 64]),
               E: tile.tensor(tile.f32, [1, 1])):
    t = tile.threadgroup_alloc(tile.f32, (16, 64))
    tile.copy(X[0:16, 0:64], t, coalesced_width=4,
              mask_fn=lambda i, j: (j < 32) | (i == 3))
    tile.barrier()
    t[0:8, :] += 1.0
    t[15, 63] = 5.0
    Y[0:16, 0:64] = t
    tile.copy(t[8:16, :], Z[0:8, 0:64], coalesced_width=2)
    E[0, 0] = t[3, 40] + tile.rowsum(t[...])[0, 0]


def test_two_dimensional_buffers_and_slice_copies():
    rng = np.random.default_rng(11)
    X = rng.uniform(-1, 1, (16, 100)).astype(np.float32)
    Y = np.zeros((16, 64), np.float32)
    Z = np.zeros((8, 64), np.float32)
    E = np.zeros((1, 1), np.float32)
    result = buffers_2d(X, Y, Z, E, backend="emulate")
    assert result.matched
    want = np.zeros((16, 64), np.float32)
    want[:, :32] = X[:, :32]
    want[3] = X[3, :64]
    want[:8] += 1.0
    want[15, 63] = 5.0
    np.testing.assert_array_equal(Y, want)
    np.testing.assert_array_equal(Z, want[8:])
    np.testing.assert_allclose(E[0, 0], want[3, 40] + want[0].sum(),
                               rtol=1e-5)
    ir = buffers_2d.compile(X, Y, Z, E).mlir()
    assert "!tile.var<16x64xf32>" in ir and "storage = #tile.storage<shared>" \
        in ir
    assert "[16, 64] mask %" in ir  # the tensor slice into t, masked
    assert "[8, 64] {width = 2 : i64}" in ir   # rows 8..15 of t into Z


@tile.kernel(threads=64)
def half_ring(A: tile.tensor(tile.f16, [8, "K"]),
              S: tile.tensor(tile.f32, [8, 64])):
    p = tile.pipeline(tile.f16, (8, 64), stages=2)
    tile.copy(A[0:8, 0:64], p.front(), coalesced_width=8)
    acc = tile.zeros((8, 64))
    for k in tile.range(0, A.shape[1], 64):
        tile.barrier()
        acc += tile.f32(p.front())
        tile.copy(A[0:8, k + 64:k + 128], p.back(), coalesced_width=8)
        p.advance()
    S[0:8, 0:64] = acc


@pytest.mark.parametrize("K", [64, 200])
def test_a_two_dimensional_ring_of_f16(K):
    A = np.random.default_rng(K).uniform(-1, 1, (8, K)).astype(np.float16)
    S = np.zeros((8, 64), np.float32)
    assert half_ring(A, S, backend="emulate").matched
    padded = np.zeros((8, -(-K // 64) * 64), np.float32)
    padded[:, :K] = A
    np.testing.assert_allclose(S, padded.reshape(8, -1, 64).sum(1),
                               rtol=1e-3, atol=1e-3)
    assert "width = 8 : i64" in half_ring.compile(A, S).mlir()


@tile.kernel(threads=64)
def box_mismatch(X: tile.tensor(tile.f32, [16, 64])):
    t = tile.threadgroup_alloc(tile.f32, (16, 64))
    tile.copy(X[0:8, 0:64], t)


@tile.kernel(threads=64)
def offset_without_count(X: tile.tensor(tile.f32, [16, 64])):
    t = tile.threadgroup_alloc(tile.f32, (16, 64))
    tile.copy(X[0:16, 0:64], t, src_offset=4)


@tile.kernel(threads=64)
def whole_tensor_without_count(X: tile.tensor(tile.f32, [16, 64])):
    t = tile.threadgroup_alloc(tile.f32, (16, 64))
    tile.copy(X, t)


@tile.kernel(threads=64)
def per_thread_side(X: tile.tensor(tile.f32, [64])):
    t = tile.threadgroup_alloc(tile.f32, 64)
    tile.copy(X[tile.thread_id()], t)


@tile.kernel(threads=64)
def two_masks(X: tile.tensor(tile.f32, [64])):
    t = tile.threadgroup_alloc(tile.f32, 64)
    tile.copy(X[0:64], t, mask=tile.iota((64,), 0) < 3,
              mask_fn=lambda i: i < 3)


@tile.kernel(threads=64)
def computed_index_2d(X: tile.tensor(tile.f32, [64])):
    t = tile.threadgroup_alloc(tile.f32, (2, 32))
    X[tile.thread_id()] = t[0, tile.thread_id()]


@tile.kernel(threads=64)
def width_8_of_f32(X: tile.tensor(tile.f32, [64])):
    t = tile.threadgroup_alloc(tile.f32, 64)
    tile.copy(X[0:64], t, coalesced_width=8)


@tile.kernel(threads=64)
def part_outside(X: tile.tensor(tile.f32, [16, 64])):
    t = tile.threadgroup_alloc(tile.f32, (16, 64))
    tile.copy(X[0:16, 0:64], t[8:24, :])


@pytest.mark.parametrize("kernel, message", [
    (box_mismatch, r"the source and the destination of a copy are \[8, 64\] "
                   r"and \[16, 64\]: they must have the same shape"),
    (offset_without_count, "src_offset goes with count"),
    (whole_tensor_without_count, r"copy from 'X': the box of a tensor is a "
                                 r"slice of it \(X\[a:b, ...\]\), or give "
                                 "count=N"),
    (per_thread_side, "a side of a copy is a slice with uniform starts, not "
                      "a per-thread access"),
    (two_masks, "a copy takes mask_fn or mask, not both"),
    (computed_index_2d, r"buffer 't' of shape \[2, 32\] is indexed with a "
                        "constant int or slice"),
    (width_8_of_f32, "width 8 of 'f32' is 32 bytes"),
    (part_outside, "outside"),
], ids=lambda x: getattr(x, "name", None))
def test_copy_of_slices_errors(kernel, message):
    with pytest.raises(tile.CompileError, match=message) as raised:
        kernel.compile()
    # At the call's line in this file, with the caret.
    assert os.path.basename(__file__) + ":" in str(raised.value)
    assert "^" in str(raised.value)
