// rowmean (examples/control.tile) as an expert writes it: 16 rows per CTA,
// a [16, 64] accumulator (8 per thread) over the columns, then the row sums
// through shared memory.
extern "C" __global__ void __launch_bounds__(128)
    rowmean(const float *__restrict__ X, float *__restrict__ Mean,
            int *__restrict__ Chunks, long long M, long long N) {
  const int t = threadIdx.x;
  const long long row0 = blockIdx.x * 16ll;
  float acc[8] = {0.f};
  int chunks = 0;
  for (long long col = 0; col < N; col += 64, ++chunks) {
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const int e = t + 128 * k, r = e / 64, c = e % 64;
      const long long i = row0 + r, j = col + c;
      acc[k] += (i < M && j < N) ? X[i * N + j] : 0.f;
    }
  }
  __shared__ float tile[16 * 64];
#pragma unroll
  for (int k = 0; k < 8; ++k)
    tile[t + 128 * k] = acc[k];
  __syncthreads();
  if (t < 16 && row0 + t < M) {
    float s = 0.f;
    for (int c = 0; c < 64; ++c)
      s += tile[t * 64 + c];
    Mean[row0 + t] = N == 0 ? 0.f : s / (float)N;
  }
  if (blockIdx.x == 0 && t == 0)
    Chunks[0] = chunks;
}
