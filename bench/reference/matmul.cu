// matmul (examples/matmul.tile) as an expert writes it with tensor cores,
// the CTA shaped as tile's: per K step of 32, A [32, 32] and B [32, 64] f16
// tiles go to shared memory (rows padded by 16 bytes, so each ldmatrix
// phase's eight rows fall in distinct banks); the 8 warps tile C [32, 64]
// 2 x 4, each warp a [16, 16] block: per 16 of K one ldmatrix.x4 of A, one
// ldmatrix.x4.trans of B and two mma.sync.m16n8k16 (f16 in, f32
// accumulators in registers). Global loads are element by element with
// K's edge masked, as the SIMT reference (and tile) do.
#include <cuda_fp16.h>

#include <cstdint>

static __device__ inline uint32_t sharedAddress(const void *pointer) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(pointer));
}

extern "C" __global__ void __launch_bounds__(256)
    matmul(const __half *__restrict__ A, const __half *__restrict__ B,
           float *__restrict__ C, long long K) {
  constexpr int kPitchA = 32 + 8, kPitchB = 64 + 8; // 80 and 144 bytes
  __shared__ __align__(16) __half a[32 * kPitchA];
  __shared__ __align__(16) __half b[32 * kPitchB];
  const int t = threadIdx.x, lane = t % 32, warp = t / 32;
  const int warpRow = 16 * (warp / 4), warpColumn = 16 * (warp % 4);
  float acc[2][4] = {};
  for (long long k0 = 0; k0 < K; k0 += 32) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int e = t + 256 * i, r = e / 32, c = e % 32;
      a[r * kPitchA + c] = k0 + c < K ? A[r * K + k0 + c] : __float2half(0.f);
    }
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int e = t + 256 * i, r = e / 64, c = e % 64;
      b[r * kPitchB + c] =
          k0 + r < K ? B[(k0 + r) * 64 + c] : __float2half(0.f);
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < 32; kk += 16) {
      // Lane 8 i + r gives row r of matrix i: A's rows 0-15 at K 0 and 8;
      // B's K rows 0-15 at columns 0 and 8 (transposed: mma's B).
      uint32_t fa[4], fb[4];
      asm volatile(
          "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
          : "=r"(fa[0]), "=r"(fa[1]), "=r"(fa[2]), "=r"(fa[3])
          : "r"(sharedAddress(&a[(warpRow + lane % 16) * kPitchA + kk +
                                 8 * (lane / 16)])));
      asm volatile(
          "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, "
          "[%4];"
          : "=r"(fb[0]), "=r"(fb[1]), "=r"(fb[2]), "=r"(fb[3])
          : "r"(sharedAddress(&b[(kk + lane % 16) * kPitchB + warpColumn +
                                 8 * (lane / 16)])));
#pragma unroll
      for (int j = 0; j < 2; ++j)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                     "{%0, %1, %2, %3};"
                     : "+f"(acc[j][0]), "+f"(acc[j][1]), "+f"(acc[j][2]),
                       "+f"(acc[j][3])
                     : "r"(fa[0]), "r"(fa[1]), "r"(fa[2]), "r"(fa[3]),
                       "r"(fb[2 * j]), "r"(fb[2 * j + 1]));
    }
    __syncthreads();
  }
  // C fragment: c0, c1 at row lane / 4, columns 2 (lane % 4) + {0, 1};
  // c2, c3 eight rows below.
  const int row = warpRow + lane / 4;
#pragma unroll
  for (int j = 0; j < 2; ++j) {
    const int column = warpColumn + 8 * j + 2 * (lane % 4);
    C[row * 64 + column] = acc[j][0];
    C[row * 64 + column + 1] = acc[j][1];
    C[(row + 8) * 64 + column] = acc[j][2];
    C[(row + 8) * 64 + column + 1] = acc[j][3];
  }
}
