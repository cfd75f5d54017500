//===- LaunchMath.cpp - Launch validation and sizing ----------------------===//

#include "LaunchMath.h"

#include <algorithm>
#include <string>

using namespace baton;
using namespace baton::detail;

static std::string dims(const Dim3 &D) {
  return std::to_string(D.x) + "," + std::to_string(D.y) + "," +
         std::to_string(D.z);
}

[[noreturn]] static void invalid(std::string_view Kernel,
                                 const std::string &Why) {
  throw Error(ErrorKind::InvalidArgument,
              "cannot launch kernel '" + std::string(Kernel) + "': " + Why);
}

uint64_t baton::detail::virtualBlockCount(const Dim3 &Grid) {
  return uint64_t(Grid.x) * Grid.y * Grid.z;
}

void baton::detail::validateLaunch(const LaunchConfig &Config,
                                   std::string_view Kernel) {
  const Dim3 &G = Config.Grid, &B = Config.Block;
  if (G.x == 0 || G.y == 0 || G.z == 0)
    invalid(Kernel, "empty grid (" + dims(G) + ")");
  if (B.x == 0 || B.y == 0 || B.z == 0)
    invalid(Kernel, "empty block (" + dims(B) + ")");
  uint64_t Threads = uint64_t(B.x) * B.y * B.z;
  if (Threads > 1024)
    invalid(Kernel, "block " + dims(B) + " has " + std::to_string(Threads) +
                        " threads; at most 1024 are allowed");
  if (Config.LaunchMode == Mode::Original)
    return;
  uint64_t Blocks = virtualBlockCount(G);
  if (Blocks >= BATON_MAX_VIRTUAL_BLOCKS)
    invalid(Kernel, "grid " + dims(G) + " has " + std::to_string(Blocks) +
                        " blocks; preemptible variants take fewer than " +
                        std::to_string(BATON_MAX_VIRTUAL_BLOCKS) +
                        " (BATON_MAX_VIRTUAL_BLOCKS)");
  if (G.y > 65535 || G.z > 65535)
    invalid(Kernel, "grid " + dims(G) + " exceeds CUDA's 65535 limit on y/z");
}

uint32_t baton::detail::claimChunk(uint32_t Chunk, uint32_t End) {
  uint32_t Headroom = End ? (UINT32_MAX - End) / End : UINT32_MAX;
  return std::max<uint32_t>(
      std::min({Chunk, BATON_MAX_CLAIM_CHUNK, Headroom}), 1);
}

uint32_t baton::detail::coResidentWidth(int BlocksPerSm,
                                        int MultiprocessorCount,
                                        uint64_t VirtualBlocks,
                                        std::string_view Kernel) {
  if (BlocksPerSm <= 0)
    invalid(Kernel, "not even one block fits on a multiprocessor (too many "
                    "threads, registers or shared memory per block)");
  uint64_t Width = uint64_t(BlocksPerSm) * uint64_t(MultiprocessorCount);
  return uint32_t(std::clamp<uint64_t>(std::min(Width, VirtualBlocks), 1,
                                        UINT32_MAX));
}
