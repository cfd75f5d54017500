// Baton test corpus: REFUSAL case - thread-block clusters (sm_90).
//
// Blocks of a cluster are co-scheduled on one GPC, synchronise with
// barrier.cluster and read each other's shared memory (distributed shared
// memory, mapa / ld.shared::cluster). Their identity comes from cluster
// special registers (%cluster_ctarank, %clusterid, %cluster_nctarank, ...).
// Virtual blocks have no cluster peers, so a correct tool refuses both the
// compile-time cluster kernel and the kernel that only reads cluster
// registers (it would be launched with a cluster launch attribute).

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// Each pair of blocks exchanges tiles through distributed shared memory.
extern "C" __global__ void __cluster_dims__(2, 1, 1)
    cluster_pair_exchange(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float buf[256];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  buf[threadIdx.x] = i < n ? in[i] : 0.f;
  cluster.sync();
  const float* peer = cluster.map_shared_rank(buf, rank ^ 1u);
  if (i < n) out[i] = buf[threadIdx.x] + peer[threadIdx.x];
  cluster.sync();  // keep this block's shared memory alive until the peer is done
}

// Reads only cluster special registers; the cluster shape is set at launch.
extern "C" __global__ void cluster_rank_probe(unsigned* __restrict__ out) {
  cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x == 0) {
    const dim3 cidx = cluster.block_index();
    out[4 * blockIdx.x + 0] = cluster.block_rank();
    out[4 * blockIdx.x + 1] = cluster.num_blocks();
    out[4 * blockIdx.x + 2] = cidx.x;
    out[4 * blockIdx.x + 3] = cluster.dim_blocks().x;
  }
}
