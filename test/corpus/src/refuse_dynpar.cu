// Baton test corpus: REFUSAL case - dynamic parallelism (device-side launch).
//
// parent_launch_segments launches child grids from the device (CUDA Dynamic
// Parallelism; PTX calls cudaGetParameterBufferV2 / cudaLaunchDeviceV2 and
// must be built with -rdc=true and linked against cudadevrt). A preempted
// and resumed parent cannot account for children it already launched, so a
// correct tool refuses the parent. The child itself is an ordinary kernel,
// but this module only loads after device linking, so it gets no manifest
// lines either.

extern "C" __global__ void child_scale_segment(float* __restrict__ data, int begin,
                                               int end, float s) {
  const int i = begin + blockIdx.x * blockDim.x + threadIdx.x;
  if (i < end) data[i] *= s;
}

// One thread per segment launches a child grid sized to its segment.
extern "C" __global__ void parent_launch_segments(float* __restrict__ data,
                                                  const int* __restrict__ offsets,
                                                  int nseg, float s) {
  const int seg = blockIdx.x * blockDim.x + threadIdx.x;
  if (seg >= nseg) return;
  const int begin = offsets[seg], end = offsets[seg + 1];
  if (end <= begin) return;
  const int threads = 128;
  const int blocks = (end - begin + threads - 1) / threads;
  child_scale_segment<<<blocks, threads, 0, cudaStreamFireAndForget>>>(data, begin, end, s);
}

// Tail launch: the continuation runs after the parent grid completes.
extern "C" __global__ void parent_tail_launch(float* __restrict__ data, int n, float s) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1.f;
  if (blockIdx.x == 0 && threadIdx.x == 0)
    child_scale_segment<<<(n + 255) / 256, 256, 0, cudaStreamTailLaunch>>>(data, 0, n, s);
}
