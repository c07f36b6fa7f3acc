// rowscale (examples/rowscale.tile) as an expert writes it: each CTA takes
// 16 rows, walks the columns 128 at a time, 16 elements per thread.
extern "C" __global__ void __launch_bounds__(128)
    rowscale(const float *__restrict__ X, const float *__restrict__ S,
             float *__restrict__ Y, long long M, long long N) {
  const int t = threadIdx.x;
  const long long row0 = blockIdx.x * 16ll;
  for (long long col = 0; col < N; col += 128) {
#pragma unroll
    for (int k = 0; k < 16; ++k) {
      const int e = t + 128 * k, r = e / 128, c = e % 128;
      const long long i = row0 + r, j = col + c;
      if (i < M && j < N)
        Y[i * N + j] = X[i * N + j] * S[i];
    }
  }
}
