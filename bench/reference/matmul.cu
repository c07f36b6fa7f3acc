// matmul (examples/matmul.tile) as an expert writes it without tensor
// cores: per K step, A [32, 32] and B [32, 64] f16 tiles go to shared
// memory; each thread accumulates its 8 elements of C (t + 256 * k) in f32
// registers.
#include <cuda_fp16.h>

extern "C" __global__ void __launch_bounds__(256)
    matmul(const __half *__restrict__ A, const __half *__restrict__ B,
           float *__restrict__ C, long long K) {
  const int t = threadIdx.x;
  __shared__ __half a[32 * 32];
  __shared__ __half b[32 * 64];
  float acc[8] = {0.f};
  for (long long k0 = 0; k0 < K; k0 += 32) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int e = t + 256 * i, r = e / 32, c = e % 32;
      a[e] = k0 + c < K ? A[r * K + k0 + c] : __float2half(0.f);
    }
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int e = t + 256 * i, r = e / 64;
      b[e] = k0 + r < K ? B[(k0 + r) * 64 + e % 64] : __float2half(0.f);
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int e = t + 256 * i, r = e / 64, c = e % 64;
      float sum = 0.f;
      for (int kk = 0; kk < 32; ++kk)
        sum += __half2float(a[r * 32 + kk]) * __half2float(b[kk * 64 + c]);
      acc[i] += sum;
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 8; ++i)
    C[t + 256 * i] = acc[i];
}
