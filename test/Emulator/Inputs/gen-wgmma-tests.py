# Writes the kernels of test/Emulator/wgmma.mlir and wgmma-faults.mlir:
# `python3 gen-wgmma-tests.py < SPECS`, a line per kernel: name dtype M N K
# A-major A-swizzle B-major B-swizzle B-stored [faults...]. Each kernel
# stores A and B into shared memory in the named wgmma layout (its byte
# offsets from the PTX ISA's canonical layouts, then the swizzle), builds
# the descriptors and runs the K steps; a fault leaves one thing out or
# does one thing wrong (no_wait, overwrite, no_proxy_fence, outside,
# no_fence, partial, diverge).
# Generates test/Emulator/wgmma.mlir's kernels: each stores A and B into
# shared memory in a wgmma layout, builds the descriptors, runs the K steps.
import sys
out = []
def emit(s): out.append(s)

def layout_terms(major, swz, e, mnext, kext):
    """(terms for mn, terms for k) of the byte offset, lbo, sbo, kstep bytes.
    terms: list of (div, mod, mul)."""
    T = 16 // e
    if major == 'K':
        if swz == 0:
            lbo = 128; sbo = (kext // 8 if e == 2 else kext // 4) * 128
            sbo = (kext // T) * 128
            mn = [(1, 8, 16), (8, 1 << 30, sbo)]
            k = [(1, T, e), (T, 1 << 30, lbo)]
            kstep = (16 if e == 2 else 8) // T * lbo
        else:
            assert kext * e == swz
            sbo = 8 * swz; lbo = 16
            mn = [(1, 1 << 30, swz)]
            k = [(1, 1 << 30, e)]
            kstep = 32
    else:
        if swz == 0:
            sbo = 128; lbo = (mnext // T) * 128
            mn = [(1, T, e), (T, 1 << 30, sbo)]
            k = [(1, 8, 16), (8, 1 << 30, lbo)]
            kstep = 2 * lbo
        else:
            per = swz // e
            lbo = kext * swz; sbo = 8 * swz
            mn = [(1, per, e), (per, 1 << 30, lbo)]
            k = [(1, 1 << 30, swz)]
            kstep = 16 * swz
    return mn, k, lbo, sbo, kstep

counter = [0]
def fresh(p='v'):
    counter[0] += 1
    return f'%{p}{counter[0]}'

def const(v, t='index'):
    n = fresh('c')
    emit(f'    {n} = arith.constant {v} : {t}')
    return n

def offset_expr(idx, terms):
    acc = None
    for div, mod, mul in terms:
        x = idx
        if div != 1:
            y = fresh(); emit(f'    {y} = arith.divui {x}, {const(div)} : index'); x = y
        if mod != 1 << 30:
            y = fresh(); emit(f'    {y} = arith.remui {x}, {const(mod)} : index'); x = y
        y = fresh(); emit(f'    {y} = arith.muli {x}, {const(mul)} : index'); x = y
        if acc is None: acc = x
        else:
            z = fresh(); emit(f'    {z} = arith.addi {acc}, {x} : index'); acc = z
    return acc

def swizzle(off, swz):
    if swz == 0: return off
    mask = swz // 16 - 1
    a = fresh(); emit(f'    {a} = arith.shrui {off}, {const(7)} : index')
    b = fresh(); emit(f'    {b} = arith.andi {a}, {const(mask)} : index')
    c = fresh(); emit(f'    {c} = arith.shli {b}, {const(4)} : index')
    d = fresh(); emit(f'    {d} = arith.xori {off}, {c} : index')
    return d

def store_matrix(name, ptr, elty, rows, cols, rowIsMN, major, swz, e, mnext, kext, base, fault_skip_fence=False):
    """Global [rows, cols] row-major -> shared at base."""
    total = rows * cols
    mnT, kT, lbo, sbo, kstep = layout_terms(major, swz, e, mnext, kext)
    lb = fresh('lb'); ub = const(total); st = const(128)
    emit(f'    scf.for {lb} = %tid to {ub} step {st} {{')
    r = fresh(); emit(f'    {r} = arith.divui {lb}, {const(cols)} : index')
    c = fresh(); emit(f'    {c} = arith.remui {lb}, {const(cols)} : index')
    mn, k = (r, c) if rowIsMN else (c, r)
    o1 = offset_expr(mn, mnT); o2 = offset_expr(k, kT)
    o = fresh(); emit(f'    {o} = arith.addi {o1}, {o2} : index')
    ob = fresh(); emit(f'    {ob} = arith.addi {o}, {const(base)} : index')
    phys = swizzle(ob, swz)
    i64 = fresh(); emit(f'    {i64} = arith.index_cast {lb} : index to i64')
    p = fresh(); emit(f'    {p} = llvm.getelementptr {ptr}[{i64}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, {elty}')
    v = fresh(); emit(f'    {v} = llvm.load {p} : !llvm.ptr<1> -> {elty}')
    emit(f'    memref.store {v}, %bytes[{phys}] : memref<SHAREDx{elty}_VIEW>'.replace('SHAREDx'+elty+'_VIEW', 'VIEW'))
    emit('    }')
    return lbo, sbo, kstep

def descriptor(base, lbo, sbo, swz):
    mode = {0: 0, 128: 1, 64: 2, 32: 3}[swz]
    return ((base & 0x3ffff) >> 4) | ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (mode << 62)

def kernel(name, elty, M, N, K, amaj, aswz, bmaj, bswz, bstored, faults=(), threads=128, shared=None):
    e = 4 if elty == 'f32' else 2
    wty = {'f16': 'f16', 'bf16': 'bf16', 'f32': 'tf32'}[elty]
    kinst = 8 if elty == 'f32' else 16
    bases = (0, 8192)
    shared = shared or 16384
    emit(f'  gpu.func @{name}(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %D: !llvm.ptr<1>) workgroup(%shared : memref<{shared}xi8, #gpu.address_space<workgroup>>) kernel attributes {{known_block_size = array<i32: {threads}, 1, 1>}} {{')
    emit('    %tid = gpu.thread_id x')
    c0 = const(0)
    emit(f'    %bytes = memref.view %shared[{c0}][] : memref<{shared}xi8, #gpu.address_space<workgroup>> to memref<{shared // e}x{elty}, #gpu.address_space<workgroup>>')
    global out
    # element-indexed view: addresses computed in bytes, divided by e.
    start = len(out)
    la, sa, ka = store_matrix('A', '%A', elty, M, K, True, amaj, aswz, e, M, K, bases[0])
    if bstored == 'KN':
        lbb, sbb, kb = store_matrix('B', '%B', elty, K, N, False, bmaj, bswz, e, N, K, bases[1])
    else:
        lbb, sbb, kb = store_matrix('B', '%B', elty, N, K, True, bmaj, bswz, e, N, K, bases[1])
    # convert byte offsets in memref.store to element indices
    for i in range(start, len(out)):
        if out[i].startswith('    memref.store'):
            parts = out[i].split('%bytes[')
            idx = parts[1].split(']')[0]
            q = fresh()
            out[i] = f'    {q} = arith.divui {idx}, {const_inline(e)} : index\n' + parts[0] + f'%bytes[{q}] : memref<{shared // e}x{elty}, #gpu.address_space<workgroup>>'
    if 'overwrite' not in faults or True:
        pass
    emit('    gpu.barrier')
    if 'no_proxy_fence' not in faults:
        emit('    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}')
    if 'diverge' in faults:
        z = fresh(); emit(f'    {z} = arith.cmpi eq, %tid, {const(0)} : index')
        emit(f'    scf.if {z} {{')
        emit('      gpu.barrier')
        emit('    }')
    if 'no_fence' not in faults:
        emit('    nvvm.wgmma.fence.aligned')
    nreg = N // 2
    sty = '!llvm.struct<(' + ', '.join(['f32'] * nreg) + ')>'
    acc = fresh('acc'); emit(f'    {acc} = llvm.mlir.zero : {sty}')
    la_layout = '#nvvm.mma_layout<col>' if amaj == 'MN' else '#nvvm.mma_layout<row>'
    lb_layout = '#nvvm.mma_layout<row>' if bmaj == 'MN' else '#nvvm.mma_layout<col>'
    abase = bases[0] + (1 << 18 if 'outside' in faults else 0)
    if 'outside' in faults:
        abase = shared - 512
    for s in range(K // kinst):
        da = descriptor(abase + s * ka, la, sa, aswz)
        db = descriptor(bases[1] + s * kb, lbb, sbb, bswz)
        dav = fresh('da'); emit(f'    {dav} = llvm.mlir.constant({da - (1 << 64) if da >= 1 << 63 else da} : i64) : i64')
        dbv = fresh('db'); emit(f'    {dbv} = llvm.mlir.constant({db - (1 << 64) if db >= 1 << 63 else db} : i64) : i64')
        nacc = fresh('acc')
        scale = 'zero' if s == 0 else 'one'
        emit(f'    {nacc} = nvvm.wgmma.mma_async {dav}, {dbv}, {acc}, #nvvm.shape<m = 64, n = {N}, k = {kinst}>, D[<f32>, <{scale}>], A[<{wty}>, <one>, {la_layout}], B[<{wty}>, <one>, {lb_layout}] : {sty} -> {sty}')
        acc = nacc
    emit('    nvvm.wgmma.commit.group.sync.aligned')
    if 'overwrite' in faults:
        z = fresh(); emit(f'    {z} = arith.constant 0.0 : {elty}')
        emit(f'    memref.store {z}, %bytes[%tid] : memref<{shared // e}x{elty}, #gpu.address_space<workgroup>>')
    if 'no_wait' not in faults:
        emit('    nvvm.wgmma.wait.group.sync.aligned 0')
    # store D: d_i at row 16 (t/32) + (t%32)/4 + 8 ((i/2)%2), col 8 (i/4) + 2 (t%4) + i%2
    w = fresh(); emit(f'    {w} = arith.divui %tid, {const(32)} : index')
    l = fresh(); emit(f'    {l} = arith.remui %tid, {const(32)} : index')
    g = fresh(); emit(f'    {g} = arith.divui {l}, {const(4)} : index')
    q = fresh(); emit(f'    {q} = arith.remui {l}, {const(4)} : index')
    w16 = fresh(); emit(f'    {w16} = arith.muli {w}, {const(16)} : index')
    row = fresh(); emit(f'    {row} = arith.addi {w16}, {g} : index')
    rowN = fresh(); emit(f'    {rowN} = arith.muli {row}, {const(N)} : index')
    q2 = fresh(); emit(f'    {q2} = arith.muli {q}, {const(2)} : index')
    b0 = fresh(); emit(f'    {b0} = arith.addi {rowN}, {q2} : index')
    b64 = fresh(); emit(f'    {b64} = arith.index_cast {b0} : index to i64')
    p0 = fresh(); emit(f'    {p0} = llvm.getelementptr %D[{b64}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32')
    for i in range(nreg):
        off = 8 * N * ((i // 2) % 2) + 8 * (i // 4) + i % 2
        x = fresh(); emit(f'    {x} = llvm.extractvalue {acc}[{i}] : {sty}')
        p = fresh(); emit(f'    {p} = llvm.getelementptr {p0}[{off}] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32')
        emit(f'    llvm.store {x}, {p} : f32, !llvm.ptr<1>')
    emit('    gpu.return')
    emit('  }')
    emit('')

def const_inline(v):
    return f'%e{v}'

emit('module attributes {gpu.container_module} {')
emit('gpu.module @tile_kernels {')
specs = [l.split() for l in sys.stdin.read().strip().splitlines()]
for s in specs:
    name, elty, M, N, K, amaj, aswz, bmaj, bswz, bstored = s[:10]
    faults = s[10:]
    threads = 64 if 'partial' in faults else 128
    kernel(name, elty, int(M), int(N), int(K), amaj, int(aswz), bmaj, int(bswz), bstored, faults, threads)
emit('}')
emit('}')
text = '\n'.join(out)
# constants for the byte -> element division
for v in (2, 4):
    text = text.replace('%tid = gpu.thread_id x', f'%tid = gpu.thread_id x\n    %e{v} = arith.constant {v} : index', 1) if False else text
text = text.replace('    %tid = gpu.thread_id x', '    %tid = gpu.thread_id x\n    %e2 = arith.constant 2 : index\n    %e4 = arith.constant 4 : index')
print(text)
