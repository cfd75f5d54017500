// Baton test corpus: calls, the heap and launch-time state.
//
//  * indirect_call: a call through a function pointer loaded from a device
//    table initialised with function addresses (`call` through a register
//    with a .callprototype).
//  * recursive_fib: a recursive device function beside a local array, so
//    the kernel has a call stack (.local depot, %SP) and real recursion of a
//    depth that differs between lanes. ptxas miscompiles it inside a
//    PTB worker's loop, so its PTB variant is refused (docs/refusals.md,
//    recursion).
//  * device_heap: device-side malloc/free, one allocation per block shared
//    through shared memory.
//  * dynamic_smem_size: sizes its work by %dynamic_smem_size, which a PTB
//    launch's extra dynamic shared memory must not change.
//  * dependent_launch: programmatic dependent launch in the kernel
//    (griddepcontrol.wait / .launch_dependents; no-ops when launched
//    without the attribute).
//  * launch_bounds_3d: __launch_bounds__(128, 4) (.maxntid, .minnctapersm)
//    on a 3-D block, and a loop kept rolled (#pragma unroll 1).
//  * generic_space: generic pointers into shared or global memory chosen per
//    thread, told apart with isspacep.shared.
//  * only_exit, empty_kernel: a kernel that ends in `exit` and one with no
//    body at all.
//
// "//@ launch" lines: see elementwise.cu and test/corpus/README.md.

typedef float (*unary_fn)(float);
__device__ float square_of(float x) { return x * x; }
__device__ float negative_of(float x) { return -x; }
__device__ unary_fn unary_table[2] = {square_of, negative_of};

extern "C" __global__ void indirect_call(float *out, const float *in, int n,
                                         int which) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = unary_table[(which + (i & 1)) & 1](in[i]);
}
//@ launch indirect_call 391,1,1 256,1,1 0 out:f32:100003 in:f32:100003 i32:100003 i32:1

__device__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

extern "C" __global__ void recursive_fib(int *out) {
  int local[16];
  for (int i = 0; i < 16; ++i)
    local[i] = fib((threadIdx.x + blockIdx.x + i) % 12);
  out[blockIdx.x * blockDim.x + threadIdx.x] =
      local[(threadIdx.x * 7) % 16] + local[blockIdx.x % 16];
}
//@ launch recursive_fib 97,1,1 128,1,1 0 out:i32:12416

extern "C" __global__ void device_heap(int *out) {
  __shared__ int *block_buffer;
  if (threadIdx.x == 0)
    block_buffer = static_cast<int *>(malloc(blockDim.x * sizeof(int)));
  __syncthreads();
  if (block_buffer)
    block_buffer[threadIdx.x] = threadIdx.x * (blockIdx.x + 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    out[blockIdx.x] = block_buffer ? block_buffer[blockDim.x - 1] : -1;
    free(block_buffer);
  }
}
//@ launch device_heap 211,1,1 128,1,1 0 out:i32:211

extern "C" __global__ void dynamic_smem_size(int *out) {
  extern __shared__ int window[];
  unsigned bytes;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
  int n = bytes / sizeof(int);
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    window[i] = i * 3 + blockIdx.x;
  __syncthreads();
  if (threadIdx.x == 0)
    out[blockIdx.x] = window[n - 1] + n;
}
//@ launch dynamic_smem_size 301,1,1 128,1,1 4100 out:i32:301

extern "C" __global__ void dependent_launch(float *out, const float *in,
                                            int n) {
  cudaGridDependencySynchronize();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * 2.0f + 1.0f;
  cudaTriggerProgrammaticLaunchCompletion();
}
//@ launch dependent_launch 391,1,1 256,1,1 0 out:f32:100003 in:f32:100003 i32:100003

extern "C" __global__ void __launch_bounds__(128, 4)
    launch_bounds_3d(int *out, int n) {
  int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  int s = 0;
#pragma unroll 1
  for (int k = 0; k < n; ++k)
    s += (k ^ t) + blockIdx.x;
  out[blockIdx.x * 128 + t] = s;
}
//@ launch launch_bounds_3d 151,1,1 8,4,4 0 out:i32:19328 i32:300

extern "C" __global__ void generic_space(int *out, int *scratch) {
  __shared__ int staged[128];
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  int *p = (threadIdx.x & 1) ? staged + threadIdx.x : scratch + g;
  *p = threadIdx.x + blockIdx.x;
  __syncthreads();
  out[g] = __isShared(p) ? staged[threadIdx.x] * 2 : scratch[g];
}
//@ launch generic_space 100,1,1 128,1,1 0 out:i32:12800 zero:i32:12800

extern "C" __global__ void only_exit(int *flag) {
  if (flag == nullptr)
    return;
  asm volatile("exit;");
}
//@ launch only_exit 10,1,1 32,1,1 0 zero:i32:1

extern "C" __global__ void empty_kernel() {}
//@ launch empty_kernel 10,1,1 32,1,1 0
