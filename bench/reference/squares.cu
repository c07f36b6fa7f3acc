// squares (examples/squares.tile) as an expert writes it in CUDA C++: the
// same [16, 64] accumulator in registers (4 elements per thread, element
// t + 256 * k), one pass over K, then O and the row sums. Rows of 64 span
// two warps, so the row sum goes through shared memory as in tile.
// ABI as docs/abi.md: X, O, S, then K.
extern "C" __global__ void __launch_bounds__(256)
    squares(const float *__restrict__ X, float *__restrict__ O,
            float *__restrict__ S, long long K) {
  const int t = threadIdx.x;
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  for (long long kt = 0; kt < K; kt += 64) {
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const int e = t + 256 * k, r = e / 64, c = e % 64;
      const long long col = kt + c;
      const float x = col < K ? X[r * K + col] : 0.f;
      acc[k] += x * x;
    }
  }
  __shared__ float tile[16 * 64];
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    O[t + 256 * k] = acc[k];
    tile[t + 256 * k] = acc[k];
  }
  __syncthreads();
  if (t < 16) {
    float s = 0.f;
    for (int c = 0; c < 64; ++c)
      s += tile[t * 64 + c];
    S[t] = s;
  }
}
