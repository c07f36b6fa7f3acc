// gemm (examples/gemm.tile) as an expert writes it with tensor cores, the
// CTA shaped as tile's: one CTA per [128, 128] tile of C (blockIdx.x over
// columns, blockIdx.y over rows), 8 warps as 4 x 2 blocks of [32, 64]. Per
// K step of 32, A [128, 32] and B [32, 128] f16 tiles go to shared memory
// (rows padded by 16 bytes, so each ldmatrix phase's eight rows fall in
// distinct banks); per 16 of K a warp issues 2 ldmatrix.x4 of A, 4
// ldmatrix.x4.trans of B and 16 mma.sync.m16n8k16 (f16 in, f32
// accumulators in registers: 64 a thread). Global loads are element by
// element with every edge masked (zeros past M, N and K), as tile's
// general kernel does; C is stored as f16, masked. matmul.cu's scheme at
// this CTA shape.
#include <cuda_fp16.h>

#include <cstdint>

static __device__ inline uint32_t sharedAddress(const void *pointer) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(pointer));
}

extern "C" __global__ void __launch_bounds__(256)
    gemm(const __half *__restrict__ A, const __half *__restrict__ B,
         __half *__restrict__ C, long long M, long long N, long long K) {
  constexpr int kPitchA = 32 + 8, kPitchB = 128 + 8; // 80 and 272 bytes
  __shared__ __align__(16) __half a[128 * kPitchA];
  __shared__ __align__(16) __half b[32 * kPitchB];
  const int t = threadIdx.x, lane = t % 32, warp = t / 32;
  const long long row0 = 128LL * blockIdx.y, column0 = 128LL * blockIdx.x;
  const int warpRow = 32 * (warp / 2), warpColumn = 64 * (warp % 2);
  float acc[2][8][4] = {};
  for (long long k0 = 0; k0 < K; k0 += 32) {
#pragma unroll
    for (int i = 0; i < 16; ++i) {
      const int e = t + 256 * i, r = e / 32, c = e % 32;
      const long long row = row0 + r, k = k0 + c;
      a[r * kPitchA + c] =
          row < M && k < K ? A[row * K + k] : __float2half(0.f);
    }
#pragma unroll
    for (int i = 0; i < 16; ++i) {
      const int e = t + 256 * i, r = e / 128, c = e % 128;
      const long long k = k0 + r, column = column0 + c;
      b[r * kPitchB + c] =
          k < K && column < N ? B[k * N + column] : __float2half(0.f);
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < 32; kk += 16) {
      // Lane 8 i + r gives row r of matrix i: A's rows 0-15 of each 16 at
      // K 0 and 8; B's K rows 0-15 at columns 0 and 8 of each 16
      // (transposed: mma's B).
      uint32_t fa[2][4], fb[4][4];
#pragma unroll
      for (int i = 0; i < 2; ++i)
        asm volatile(
            "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
            : "=r"(fa[i][0]), "=r"(fa[i][1]), "=r"(fa[i][2]), "=r"(fa[i][3])
            : "r"(sharedAddress(&a[(warpRow + 16 * i + lane % 16) * kPitchA +
                                   kk + 8 * (lane / 16)])));
#pragma unroll
      for (int j = 0; j < 4; ++j)
        asm volatile(
            "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, "
            "[%4];"
            : "=r"(fb[j][0]), "=r"(fb[j][1]), "=r"(fb[j][2]), "=r"(fb[j][3])
            : "r"(sharedAddress(&b[(kk + lane % 16) * kPitchB + warpColumn +
                                   16 * j + 8 * (lane / 16)])));
#pragma unroll
      for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j)
          asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                       "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                       "{%0, %1, %2, %3};"
                       : "+f"(acc[i][j][0]), "+f"(acc[i][j][1]),
                         "+f"(acc[i][j][2]), "+f"(acc[i][j][3])
                       : "r"(fa[i][0]), "r"(fa[i][1]), "r"(fa[i][2]),
                         "r"(fa[i][3]), "r"(fb[j / 2][2 * (j % 2)]),
                         "r"(fb[j / 2][2 * (j % 2) + 1]));
    }
    __syncthreads();
  }
  // C fragment: c0, c1 at row lane / 4, columns 2 (lane % 4) + {0, 1};
  // c2, c3 eight rows below.
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        const long long row = row0 + warpRow + 16 * i + lane / 4 + 8 * (c / 2);
        const long long column =
            column0 + warpColumn + 8 * j + 2 * (lane % 4) + c % 2;
        if (row < M && column < N)
          C[row * N + column] = __float2half(acc[i][j][c]);
      }
}
