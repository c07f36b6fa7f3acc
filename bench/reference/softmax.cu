// softmax (examples/softmax.tile) as an expert writes it: each row of 64
// is two warps' worth; a thread holds element t + 128 * k (8 of them), so
// a row's max and sum combine two warps through shared memory.
extern "C" __global__ void __launch_bounds__(128)
    softmax(const float *__restrict__ X, float *__restrict__ Y) {
  const int t = threadIdx.x;
  __shared__ float partial[16][2];
  float x[8];
#pragma unroll
  for (int k = 0; k < 8; ++k)
    x[k] = X[t + 128 * k];
  const int half = (t % 64) / 32; // which warp of its row
  float m[8], e[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    float v = x[k];
#pragma unroll
    for (int d = 16; d >= 1; d /= 2)
      v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, d));
    m[k] = v;
  }
#pragma unroll
  for (int k = 0; k < 8; ++k)
    if (t % 32 == 0)
      partial[(t + 128 * k) / 64][half] = m[k];
  __syncthreads();
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    const int r = (t + 128 * k) / 64;
    e[k] = __expf(x[k] - fmaxf(partial[r][0], partial[r][1]));
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    float v = e[k];
#pragma unroll
    for (int d = 16; d >= 1; d /= 2)
      v += __shfl_xor_sync(0xffffffff, v, d);
    if (t % 32 == 0)
      partial[(t + 128 * k) / 64][half] = v;
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    const int r = (t + 128 * k) / 64;
    Y[t + 128 * k] = e[k] / (partial[r][0] + partial[r][1]);
  }
}
