//===- GpuHarness.cpp - Launch manifest kernels and their Baton variants --===//
#include "GpuHarness.h"

#include <cassert>
#include <chrono>
#include <fstream>
#include <stdexcept>
#include <thread>

namespace baton::gpu {

Gpu::Gpu() {
  CudaDriver &D = driver();
  CUdevice Dev;
  check(D.cuDeviceGet(&Dev, 0), "cuDeviceGet");
  CUcontext Ctx;
  check(D.cuDevicePrimaryCtxRetain(&Ctx, Dev), "cuDevicePrimaryCtxRetain");
  check(D.cuCtxSetCurrent(Ctx), "cuCtxSetCurrent");
  check(D.cuDeviceGetAttribute(&SmCount,
                               CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, Dev),
        "SM count");
  char Buf[256] = {};
  check(D.cuDeviceGetName(Buf, sizeof Buf, Dev), "cuDeviceGetName");
  Name = Buf;
  int Least = 0, Greatest = 0;
  check(D.cuCtxGetStreamPriorityRange(&Least, &Greatest), "priority range");
  check(D.cuStreamCreateWithPriority(&Work, CU_STREAM_NON_BLOCKING, Least),
        "work stream");
  check(D.cuStreamCreateWithPriority(&Control, CU_STREAM_NON_BLOCKING,
                                     Greatest),
        "control stream");
}

CUmodule Gpu::module(const std::string &Path) {
  auto It = Modules.find(Path);
  if (It != Modules.end())
    return It->second;
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    throw std::runtime_error(Path + ": cannot open module");
  std::stringstream SS;
  SS << In.rdbuf();
  std::string Image = SS.str();
  CUmodule M;
  check(driver().cuModuleLoadData(&M, Image.c_str()),
        "cuModuleLoadData(" + Path + ")");
  Modules[Path] = M;
  return M;
}

void Gpu::waitFor(CUstream S, const std::string &What, double Seconds) {
  auto Deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration<double>(Seconds);
  for (;;) {
    CUresult R = driver().cuStreamQuery(S);
    if (R == CUDA_SUCCESS)
      return;
    if (R != CUDA_ERROR_NOT_READY)
      check(R, What);
    if (std::chrono::steady_clock::now() > Deadline)
      throw std::runtime_error(What + ": still running after " +
                               std::to_string(Seconds) + " s (hung?)");
    std::this_thread::yield();
  }
}

KernelRun::KernelRun(Gpu &G, const std::string &ModulePath,
                     const LaunchSpec &Spec)
    : G(G), Spec(Spec) {
  CudaDriver &D = driver();
  CUmodule M = G.module(ModulePath);
  check(D.cuModuleGetFunction(&Original, M, Spec.Kernel.c_str()),
        Spec.Where + ": kernel " + Spec.Kernel);
  if (D.cuModuleGetFunction(&Slice, M, (Spec.Kernel + BATON_SLICE_SUFFIX).c_str()))
    Slice = nullptr;
  if (D.cuModuleGetFunction(&Ptb, M, (Spec.Kernel + BATON_PTB_SUFFIX).c_str()))
    Ptb = nullptr;
  for (CUfunction F : {Original, Slice, Ptb}) {
    uint32_t Bytes = Spec.SharedMemBytes +
                     (F == Ptb ? BATON_PTB_DYNAMIC_SHARED_BYTES : 0);
    if (F && Bytes > 48 * 1024)
      check(D.cuFuncSetAttribute(
                F, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                static_cast<int>(Bytes)),
            Spec.Where + ": dynamic shared memory");
  }
  for (size_t I = 0; I < Spec.Params.size(); ++I) {
    const test::ManifestParam &P = Spec.Params[I];
    if (P.ParamKind == test::ManifestParam::Scalar) {
      Buffers.push_back(0);
      Init.emplace_back();
      Scalars.push_back(test::scalarBytes(P));
      continue;
    }
    Init.push_back(test::initialContents(P, I));
    Scalars.emplace_back();
    CUdeviceptr Ptr;
    check(D.cuMemAlloc(&Ptr, Init.back().empty() ? 1 : Init.back().size()),
          Spec.Where + ": cuMemAlloc");
    Buffers.push_back(Ptr);
  }
  check(D.cuMemAlloc(&Task, sizeof(baton_task)), "task");
}

KernelRun::~KernelRun() {
  for (CUdeviceptr P : Buffers)
    if (P)
      driver().cuMemFree(P);
  if (Task)
    driver().cuMemFree(Task);
}

// A copy from pageable memory may return before its DMA has landed, and the
// kernels run on a non-blocking stream that does not wait for it: every
// upload is followed by a context synchronisation.
void KernelRun::reset() {
  for (size_t I = 0; I < Buffers.size(); ++I)
    if (Buffers[I])
      check(driver().cuMemcpyHtoD(Buffers[I], Init[I].data(), Init[I].size()),
            "upload");
  check(driver().cuCtxSynchronize(), "upload");
}

std::vector<std::vector<uint8_t>> KernelRun::snapshot() {
  std::vector<std::vector<uint8_t>> Out;
  for (size_t I = 0; I < Buffers.size(); ++I) {
    if (!Buffers[I])
      continue;
    Out.emplace_back(Init[I].size());
    check(driver().cuMemcpyDtoH(Out.back().data(), Buffers[I], Init[I].size()),
          "download");
  }
  return Out;
}

void KernelRun::launch(CUfunction F, CUstream S, uint32_t GX, uint32_t GY,
                       uint32_t GZ, bool WithTask, uint32_t ExtraShared,
                       CUdeviceptr OtherTask) {
  std::vector<void *> Args;
  for (size_t I = 0; I < Spec.Params.size(); ++I)
    Args.push_back(Buffers[I] ? static_cast<void *>(&Buffers[I])
                              : static_cast<void *>(Scalars[I].data()));
  if (WithTask)
    Args.push_back(OtherTask ? &OtherTask : &Task);
  check(driver().cuLaunchKernel(F, GX, GY, GZ, Spec.Block.x, Spec.Block.y,
                                Spec.Block.z, Spec.SharedMemBytes + ExtraShared,
                                S,
                                Args.data(), nullptr),
        Spec.Where + ": launch");
}

void KernelRun::writeTask(const baton_task &T) {
  check(driver().cuMemcpyHtoD(Task, &T, sizeof T), "task upload");
  check(driver().cuCtxSynchronize(), "task upload");
}

baton_task KernelRun::readTask() {
  baton_task T;
  check(driver().cuMemcpyDtoH(&T, Task, sizeof T), "task download");
  return T;
}

static baton_task freshTask(const LaunchSpec &S, uint32_t Begin,
                            uint32_t End) {
  baton_task T{};
  T.grid_x = S.Grid.x;
  T.grid_y = S.Grid.y;
  T.grid_z = S.Grid.z;
  T.begin = Begin;
  T.end = End;
  T.next = Begin;
  return T;
}

void KernelRun::launchOriginal(CUstream S) {
  launch(Original, S, Spec.Grid.x, Spec.Grid.y, Spec.Grid.z, false);
}

void KernelRun::writeTaskForSlices() {
  writeTask(freshTask(Spec, 0, Spec.blocks()));
}

void KernelRun::launchSliceKernel(CUstream S, uint32_t Blocks) {
  launch(Slice, S, Blocks, 1, 1, true);
}

void KernelRun::runSlices(uint32_t SliceBlocks) {
  const uint32_t Total = Spec.blocks();
  for (uint32_t Begin = 0; Begin < Total; Begin += SliceBlocks) {
    uint32_t End = std::min(Total, Begin + SliceBlocks);
    writeTask(freshTask(Spec, Begin, End));
    launch(Slice, G.work(), SliceBlocks, 1, 1, true);
    G.waitFor(G.work(), Spec.Kernel + BATON_SLICE_SUFFIX);
  }
}

void KernelRun::writeTaskForPtb(uint32_t Flags, uint32_t ClaimChunk,
                                uint32_t FirstShareWorkers,
                                uint32_t CoveringShareLimit) {
  writeTask(ptbTask(Flags, ClaimChunk, FirstShareWorkers, CoveringShareLimit));
}

baton_task KernelRun::ptbTask(uint32_t Flags, uint32_t ClaimChunk,
                              uint32_t FirstShareWorkers,
                              uint32_t CoveringShareLimit) const {
  baton_task T = freshTask(Spec, 0, Spec.blocks());
  T.flags = Flags;
  T.claim_chunk = ClaimChunk;
  if (FirstShareWorkers) {
    T.first_share =
        baton_first_shares(T.begin, T.end, FirstShareWorkers, ClaimChunk,
                           CoveringShareLimit, &T.first_claimed);
    T.next = T.begin + T.first_claimed;
  }
  return T;
}

void KernelRun::launchPtbKernel(CUstream S, uint32_t Workers,
                                CUdeviceptr OtherTask) {
  assert(OtherTask % BATON_TASK_ALIGN == 0 && "the variants' task alignment");
  launch(Ptb, S, Workers, 1, 1, true, BATON_PTB_DYNAMIC_SHARED_BYTES,
         OtherTask);
}

uint32_t KernelRun::residentBlocks(CUfunction F, uint32_t SharedMemBytes) {
  int PerSm = 0;
  check(driver().cuOccupancyMaxActiveBlocksPerMultiprocessor(
            &PerSm, F, static_cast<int>(Spec.Block.x * Spec.Block.y *
                                        Spec.Block.z),
            SharedMemBytes),
        "occupancy");
  return static_cast<uint32_t>(std::max(1, PerSm) * G.smCount());
}

uint32_t KernelRun::maxPtbWorkers() {
  return residentBlocks(Ptb,
                        Spec.SharedMemBytes + BATON_PTB_DYNAMIC_SHARED_BYTES);
}

uint32_t KernelRun::maxOriginalBlocks() {
  return residentBlocks(Original, Spec.SharedMemBytes);
}

KernelRun::PtbOutcome
KernelRun::runPtb(uint32_t Workers,
                  const std::function<double(unsigned)> &PauseAfter,
                  uint32_t Flags, uint32_t ClaimChunk,
                  const std::function<uint32_t(unsigned)> &Watermark,
                  bool FirstShares, uint32_t CoveringShareLimit) {
  PtbOutcome Out;
  writeTaskForPtb(Flags, ClaimChunk, FirstShares ? Workers : 0,
                  CoveringShareLimit);
  for (;;) {
    launchPtbKernel(G.work(), Workers);
    ++Out.Launches;
    double Delay = PauseAfter ? PauseAfter(Out.Launches) : -1;
    uint32_t Value = BATON_PREEMPT_ALL;
    if (Delay >= 0) {
      spinMicros(Delay);
      Value = Watermark ? Watermark(Out.Launches) : BATON_PREEMPT_ALL;
      check(driver().cuStreamWriteValue32(
                G.control(), Task + offsetof(baton_task, preempt), Value,
                CU_STREAM_WRITE_VALUE_DEFAULT),
            "preempt write");
    }
    G.waitFor(G.work(), Spec.Kernel + BATON_PTB_SUFFIX);
    G.waitFor(G.control(), "preempt write");
    baton_task T = readTask();
    if (T.workers_exited != Workers)
      throw std::runtime_error(Spec.Where + ": " + std::to_string(Workers) +
                               " workers launched, " +
                               std::to_string(T.workers_exited) + " left");
    if (T.next >= T.end) {
      // Some workers saw the watermark and left, others went on to the end.
      if (Delay >= 0 && Value < uint32_t(G.smCount()) &&
          T.workers_preempted > 0 && T.workers_preempted < T.workers_exited)
        ++Out.FinishedVacated;
      return Out;
    }
    ++Out.Pauses;
    T.preempt = 0;
    T.workers_exited = T.workers_preempted = 0;
    // The first run's workers ran their shares (as the runtime's finalize
    // kernel does, task.h).
    T.first_share = 0;
    writeTask(T); // resume: same cursor, flag cleared
  }
}

void spinMicros(double Micros) {
  auto End = std::chrono::steady_clock::now() +
             std::chrono::duration<double, std::micro>(Micros);
  while (std::chrono::steady_clock::now() < End) {
  }
}

LaunchSpec spinKernelSpec(const std::string &Module, const std::string &Kernel,
                          uint32_t Blocks, const std::string &BufferType,
                          uint64_t BufferCount, uint32_t SpinNs,
                          const std::string &Where) {
  LaunchSpec S;
  S.Module = Module;
  S.Kernel = Kernel;
  S.Block.x = 128;
  S.Grid.x = Blocks;
  test::ManifestParam Buffer;
  Buffer.ParamKind = test::ManifestParam::InOut;
  Buffer.Type = BufferType;
  Buffer.Count = BufferCount;
  Buffer.Text = "inout:" + BufferType + ":" + std::to_string(BufferCount);
  test::ManifestParam Spin;
  Spin.Type = "u32";
  Spin.Value = std::to_string(SpinNs);
  Spin.Text = "u32:" + Spin.Value;
  S.Params = {Buffer, Spin};
  S.Where = Where;
  return S;
}

} // namespace baton::gpu
