"""Python twins of the .tile examples that examples/python has no twin of
(examples/*.tile: issue 14's kernels and the GEMM), written as a user
would: test_twins.py checks that each builds the IR of its .tile twin
and computes what tile-run's reference computes on the same inputs."""

import tile
from tile import bf16 as BF16, f16 as F16, f32 as F32, i32 as I32, tensor

# examples/flash_attention.tile
BM, BN, D = 16, 32, 32


@tile.kernel(threads=128, grid=lambda N: tile.cdiv(N, BM))
def flash_attention(scale: F32, Q: tensor(F16, ["N", D]),
                    K: tensor(F16, ["N", D]), V: tensor(F16, ["N", D]),
                    O: tensor(F32, ["N", D])):
    r = tile.ctx.block.x * BM
    q = Q[r:r + BM, 0:D]
    queries = tile.iota((BM, BN), 0) + tile.i32(r)
    m: tile.tile_type(F32, [BM, 1]) = -tile.inf
    l: tile.tile_type(F32, [BM, 1]) = 0.0
    acc: tile.tile_type(F32, [BM, D]) = 0.0
    for c in tile.range(0, r + BM, BN):
        keys = tile.iota((BM, BN), 1) + tile.i32(c)
        s = tile.dot(q, tile.transpose(K[c:c + BN, 0:D])) * scale
        s = tile.where((keys <= queries) & (keys < tile.i32(N)), s,  # noqa: F821
                       -tile.inf)
        grown = tile.max(m, tile.rowmax(s))
        p = tile.exp(s - grown)
        rescale = tile.exp(m - grown)
        l = l * rescale + tile.rowsum(p)
        acc = acc * rescale + tile.dot(tile.f16(p), V[c:c + BN, 0:D])
        m = grown
    O[r:r + BM, 0:D] = acc / l


# examples/layernorm.tile
ROWS, COLS = 16, 128


@tile.kernel(threads=256, grid=lambda M: tile.cdiv(M, ROWS))
def layernorm(eps: F32, X: tensor(F32, ["M", "N"]), W: tensor(F32, [1, "N"]),
              B: tensor(F32, [1, "N"]), Y: tensor(F32, ["M", "N"])):
    r = tile.ctx.block.x * ROWS
    sum: tile.tile_type(F32, [ROWS, 1]) = 0.0
    for c in tile.range(0, N, COLS):  # noqa: F821 (the symbol N)
        sum += tile.rowsum(X[r:r + ROWS, c:c + COLS])
    mean = sum / tile.f32(N)  # noqa: F821
    squares: tile.tile_type(F32, [ROWS, 1]) = 0.0
    for c in tile.range(0, N, COLS):  # noqa: F821
        inside = tile.iota((ROWS, COLS), 1) + tile.i32(c) < tile.i32(N)  # noqa: F821,E501
        d = tile.where(inside, X[r:r + ROWS, c:c + COLS] - mean, 0.0)
        squares += tile.rowsum(d * d)
    rstd = tile.rsqrt(squares / tile.f32(N) + eps)  # noqa: F821
    for c in tile.range(0, N, COLS):  # noqa: F821
        x = X[r:r + ROWS, c:c + COLS]
        Y[r:r + ROWS, c:c + COLS] = (x - mean) * rstd * W[0, c:c + COLS] + \
            B[0, c:c + COLS]


# examples/transpose.tile
T = 32


@tile.kernel(threads=256, grid=lambda M, N: (tile.cdiv(N, T), tile.cdiv(M, T)))
def transpose_tiles(X: tensor(F32, ["M", "N"]), Y: tensor(F32, ["N", "M"])):
    r = tile.ctx.block.y * T
    c = tile.ctx.block.x * T
    Y[c:c + T, r:r + T] = tile.transpose(X[r:r + T, c:c + T])


# examples/colsum.tile


@tile.kernel(threads=128, grid=lambda N: tile.cdiv(N, 128))
def colsum(X: tensor(F32, ["M", "N"]), S: tensor(F32, [1, "N"])):
    c = tile.ctx.block.x * 128
    s: tile.tile_type(F32, [1, 128]) = 0.0
    for r in tile.range(0, M, 32):  # noqa: F821 (the symbol M)
        s += tile.colsum(X[r:r + 32, c:c + 128])
    S[0, c:c + 128] = s


# examples/argmax.tile


@tile.kernel(threads=128, grid=lambda M: tile.cdiv(M, ROWS))
def argmax(X: tensor(F32, ["M", "N"]), I: tensor(I32, ["M", 1])):
    r = tile.ctx.block.x * ROWS
    best: tile.tile_type(F32, [ROWS, 1]) = -tile.inf
    at: tile.tile_type(I32, [ROWS, 1]) = 0
    for c in tile.range(0, N, COLS):  # noqa: F821
        x = tile.load(X[r:r + ROWS, c:c + COLS], other=-tile.inf)
        top = tile.rowmax(x)
        beats = (top > best) | ((top != top) & (best == best))
        at = tile.where(beats, tile.rowargmax(x) + tile.i32(c), at)
        best = tile.where(beats, top, best)
    I[r:r + ROWS, 0:1] = at


# examples/matmul_splitk.tile
SPLIT_BM, SPLIT_BN, SPLIT_BK, SPLITS = 32, 64, 32, 4


@tile.kernel(threads=256, registers=["acc"],
             grid=lambda M, N: (tile.cdiv(N, SPLIT_BN), tile.cdiv(M, SPLIT_BM),
                                SPLITS))
def matmul_splitk(A: tensor(F16, ["M", "K"]), B: tensor(F16, ["K", "N"]),
                  C: tensor(F32, ["M", "N"])):
    m = tile.ctx.block.y * SPLIT_BM
    n = tile.ctx.block.x * SPLIT_BN
    share = tile.cdiv(K, SPLITS * SPLIT_BK) * SPLIT_BK  # noqa: F821
    k0 = tile.ctx.block.z * share
    acc: tile.tile_type(F32, [SPLIT_BM, SPLIT_BN]) = 0.0
    for k in tile.range(k0, k0 + share, SPLIT_BK):
        acc += tile.dot(A[m:m + SPLIT_BM, k:k + SPLIT_BK],
                        B[k:k + SPLIT_BK, n:n + SPLIT_BN])
    tile.atomic_add(C[m:m + SPLIT_BM, n:n + SPLIT_BN], acc)


# examples/embedding.tile


@tile.kernel(threads=128, grid=lambda M: tile.cdiv(M, ROWS))
def embedding(Ids: tensor(I32, ["M", 1]), E: tensor(F32, ["V", "D"]),
              Y: tensor(F32, ["M", "D"])):
    r = tile.ctx.block.x * ROWS
    ids = Ids[r:r + ROWS, 0:1]
    for c in tile.range(0, D, 64):  # noqa: F821 (the symbol D)
        Y[r:r + ROWS, c:c + 64] = E[ids, c:c + 64]


# examples/cross_entropy.tile


@tile.kernel(threads=128, grid=lambda M: tile.cdiv(M, ROWS))
def cross_entropy(Logits: tensor(F32, ["M", "V"]),
                  Labels: tensor(I32, ["M", 1]), Loss: tensor(F32, ["M", 1])):
    r = tile.ctx.block.x * ROWS
    m: tile.tile_type(F32, [ROWS, 1]) = -tile.inf
    s: tile.tile_type(F32, [ROWS, 1]) = 0.0
    for c in tile.range(0, V, COLS):  # noqa: F821 (the symbol V)
        x = tile.load(Logits[r:r + ROWS, c:c + COLS], other=-tile.inf)
        grown = tile.max(m, tile.rowmax(x))
        s = s * tile.exp(m - grown) + tile.rowsum(tile.exp(x - grown))
        m = grown
    labels = Labels[r:r + ROWS, 0:1]
    picked = Logits[r:r + ROWS, labels]
    valid = (labels >= 0) & (labels < tile.i32(V))  # noqa: F821
    Loss[r:r + ROWS, 0:1] = tile.where(valid, m + tile.log(s) - picked, 0.0)


# examples/gemm.tile


@tile.kernel(threads=256, registers=["acc"],
             grid=lambda M, N: (tile.cdiv(N, 128), tile.cdiv(M, 128)))
def gemm(A: tensor(F16, ["M", "K"]), B: tensor(F16, ["K", "N"]),
         C: tensor(F16, ["M", "N"])):
    row = tile.ctx.block.y * 128
    col = tile.ctx.block.x * 128
    acc: tile.tile_type(F32, [128, 128]) = 0.0
    for k in tile.range(0, K, 32):  # noqa: F821 (the symbol K)
        a = A[row:row + 128, k:k + 32]
        b = B[k:k + 32, col:col + 128]
        acc += tile.dot(a, b)
    C[row:row + 128, col:col + 128] = tile.f16(acc)


# examples/linear.tile


@tile.kernel(threads=256,
             grid=lambda M, N: (tile.cdiv(N, 128), tile.cdiv(M, 128)))
def linear(X: tensor(BF16, ["M", "K"]), W: tensor(BF16, ["N", "K"]),
           bias: tensor(F32, [1, "N"]), Y: tensor(BF16, ["M", "N"])):
    row = tile.ctx.block.y * 128
    col = tile.ctx.block.x * 128
    acc: tile.tile_type(F32, [128, 128]) = 0.0
    for k in tile.range(0, K, 64):  # noqa: F821 (the symbol K)
        x = X[row:row + 128, k:k + 64]
        w = W[col:col + 128, k:k + 64]
        acc += tile.dot(x, tile.transpose(w))
    b: tile.tile_type(F32, [1, 128]) = bias[0:1, col:col + 128]
    Y[row:row + 128, col:col + 128] = tile.bf16(acc + b)


# examples/activations.tile
A_ROWS, A_COLS = 16, 64


@tile.kernel(threads=256,
             grid=lambda M, N: (tile.cdiv(N, A_COLS), tile.cdiv(M, A_ROWS)))
def activations(X: tensor(F16, ["M", "N"]), Gelu: tensor(F16, ["M", "N"]),
                GeluTanh: tensor(F16, ["M", "N"]),
                Silu: tensor(F16, ["M", "N"])):
    r = tile.ctx.block.y * A_ROWS
    c = tile.ctx.block.x * A_COLS
    h = X[r:r + A_ROWS, c:c + A_COLS]
    x = tile.f32(h)
    Gelu[r:r + A_ROWS, c:c + A_COLS] = tile.f16(
        0.5 * x * (1.0 + tile.erf(x * 0.70710678118654752)))
    inner = tile.f16(0.79788456080286536 * (x + 0.044715 * tile.pow(x, 3.0)))
    GeluTanh[r:r + A_ROWS, c:c + A_COLS] = 0.5 * h * (1.0 + tile.tanh(inner))
    Silu[r:r + A_ROWS, c:c + A_COLS] = tile.f16(x * tile.sigmoid(x))


# examples/rope.tile
R_ROWS, R_HEAD, R_HALF = 16, 128, 64


@tile.kernel(threads=64, registers=["y"],
             grid=lambda N, S: (tile.cdiv(N, R_HEAD), tile.cdiv(S, R_ROWS)))
def rope(X: tensor(F16, ["S", "N"]), Cos: tensor(F32, ["P", R_HALF]),
         Sin: tensor(F32, ["P", R_HALF]), Start: tensor(I32, [1, 1]),
         Y: tensor(F16, ["S", "N"])):
    r = tile.ctx.block.y * R_ROWS
    h = tile.ctx.block.x * R_HEAD
    start = Start[0:1, 0:1]
    p = tile.index(start[0, 0]) + r
    c = Cos[p:p + R_ROWS, 0:R_HALF]
    s = Sin[p:p + R_ROWS, 0:R_HALF]
    x = tile.f32(X[r:r + R_ROWS, h:h + R_HEAD])
    x1 = x[0:R_ROWS, 0:R_HALF]
    x2 = x[0:R_ROWS, R_HALF:R_HEAD]
    y: tile.tile_type(F32, [R_ROWS, R_HEAD]) = 0.0
    y[0:R_ROWS, 0:R_HALF] = x1 * c - x2 * s
    y[0:R_ROWS, R_HALF:R_HEAD] = x2 * c + x1 * s
    Y[r:r + R_ROWS, h:h + R_HEAD] = tile.f16(y)


# examples/int4_unpack.tile
Q_BK, Q_BN = 64, 64


@tile.kernel(threads=256,
             grid=lambda N, K: (tile.cdiv(N, Q_BN), tile.cdiv(K, Q_BK)))
def int4_unpack(P: tensor(I32, ["KP", "N"]), S: tensor(F32, ["G", "N"]),
                W: tensor(F32, ["K", "N"])):
    n = tile.ctx.block.x * Q_BN
    group = tile.ctx.block.y
    k = group * Q_BK
    rows = tile.iota([Q_BK, 1], 0) + tile.i32(k)
    packed = P[rows >> 3, n:n + Q_BN]
    low = (rows & 7) << 2
    q = (packed << (28 - low)) >> 28
    W[k:k + Q_BK, n:n + Q_BN] = tile.f32(q) * S[group:group + 1, n:n + Q_BN]



# examples/swiglu.tile: X's width an expression of Y's symbol, the grid's
# second size a scalar parameter.
S_ROWS, S_COLS = 16, 64


@tile.kernel(threads=256,
             grid=lambda H, splits: (tile.cdiv(H, S_COLS), splits))
def swiglu(X: tensor(F16, ["M", "2 * H"]), Y: tensor(F16, ["M", "H"]),
           splits: I32):
    c = tile.ctx.block.x * S_COLS
    for r in tile.range(tile.ctx.block.y * S_ROWS, M,  # noqa: F821
                        tile.index(splits) * S_ROWS):
        gate = tile.f32(X[r:r + S_ROWS, c:c + S_COLS])
        up = tile.f32(X[r:r + S_ROWS, H + c:H + c + S_COLS])  # noqa: F821
        # Columns c + j >= H read the up half as gate, but Y drops them.
        Y[r:r + S_ROWS, c:c + S_COLS] = tile.f16(gate * tile.sigmoid(gate) *
                                                 up)
