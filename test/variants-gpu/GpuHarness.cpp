//===- GpuHarness.cpp - Launch manifest kernels and their Baton variants --===//
#include "GpuHarness.h"

#include <chrono>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace baton::gpu {

namespace {

size_t elementBytes(const std::string &T, const std::string &Where) {
  if (T == "u8") return 1;
  if (T == "f16" || T == "bf16") return 2;
  if (T == "f32" || T == "i32" || T == "u32") return 4;
  if (T == "f64" || T == "i64") return 8;
  throw std::runtime_error(Where + ": unknown element type '" + T + "'");
}

template <typename T> void put(std::vector<uint8_t> &Out, T V) {
  Out.resize(sizeof V);
  std::memcpy(Out.data(), &V, sizeof V);
}

std::vector<uint8_t> scalarBytes(const std::string &Type,
                                 const std::string &Value,
                                 const std::string &Where) {
  std::vector<uint8_t> B;
  try {
    if (Type == "f32") put(B, std::stof(Value));
    else if (Type == "f64") put(B, std::stod(Value));
    else if (Type == "i32") put(B, static_cast<int32_t>(std::stoll(Value, nullptr, 0)));
    else if (Type == "u32") put(B, static_cast<uint32_t>(std::stoull(Value, nullptr, 0)));
    else if (Type == "i64") put(B, static_cast<int64_t>(std::stoll(Value, nullptr, 0)));
    else if (Type == "u64") put(B, static_cast<uint64_t>(std::stoull(Value, nullptr, 0)));
    else throw std::runtime_error("unknown scalar type");
  } catch (const std::exception &E) {
    throw std::runtime_error(Where + ": bad scalar '" + Type + ":" + Value +
                             "': " + E.what());
  }
  return B;
}

/// Deterministic, finite, small values (the manifest's promise to kernels).
std::vector<uint8_t> fill(const std::string &Type, uint64_t Count,
                          uint32_t Seed) {
  std::mt19937_64 Rng(Seed);
  std::uniform_real_distribution<float> Unit(-1.0f, 1.0f);
  std::uniform_int_distribution<int64_t> Small(-1000, 999);
  size_t Bytes = elementBytes(Type, "fill");
  std::vector<uint8_t> Out(Count * Bytes);
  for (uint64_t I = 0; I < Count; ++I) {
    uint8_t *P = Out.data() + I * Bytes;
    if (Type == "f32") {
      float V = Unit(Rng);
      std::memcpy(P, &V, 4);
    } else if (Type == "f64") {
      double V = Unit(Rng);
      std::memcpy(P, &V, 8);
    } else if (Type == "bf16" || Type == "f16") {
      float V = Unit(Rng);
      uint32_t Bits;
      std::memcpy(&Bits, &V, 4);
      uint16_t H;
      if (Type == "bf16") {
        H = static_cast<uint16_t>(Bits >> 16);
      } else { // f16 of a value in (-1, 1): normal or flushed to zero
        uint32_t Sign = (Bits >> 16) & 0x8000, Exp = (Bits >> 23) & 0xff;
        int E16 = static_cast<int>(Exp) - 127 + 15;
        H = E16 <= 0 ? static_cast<uint16_t>(Sign)
                     : static_cast<uint16_t>(Sign | (E16 << 10) |
                                             ((Bits >> 13) & 0x3ff));
      }
      std::memcpy(P, &H, 2);
    } else if (Type == "i32") {
      int32_t V = static_cast<int32_t>(Small(Rng));
      std::memcpy(P, &V, 4);
    } else if (Type == "i64") {
      int64_t V = Small(Rng);
      std::memcpy(P, &V, 8);
    } else if (Type == "u32") {
      uint32_t V = static_cast<uint32_t>(Rng());
      std::memcpy(P, &V, 4);
    } else {
      *P = static_cast<uint8_t>(Rng());
    }
  }
  return Out;
}

} // namespace

std::vector<LaunchSpec> readManifest(const std::string &Path) {
  std::ifstream In(Path);
  if (!In)
    throw std::runtime_error(Path + ": cannot open manifest");
  std::vector<LaunchSpec> Specs;
  std::string Line;
  for (unsigned N = 1; std::getline(In, Line); ++N) {
    std::istringstream SS(Line);
    std::vector<std::string> Tok;
    for (std::string T; SS >> T;)
      Tok.push_back(T);
    if (Tok.empty() || Tok[0][0] == '#')
      continue;
    LaunchSpec S;
    S.Where = Path + ":" + std::to_string(N);
    if (Tok.size() < 5)
      throw std::runtime_error(S.Where + ": expected MODULE KERNEL GRID BLOCK "
                                         "SMEM PARAM...");
    S.Module = Tok[0];
    S.Kernel = Tok[1];
    auto Dims = [&](const std::string &T, uint32_t *Out) {
      if (std::sscanf(T.c_str(), "%u,%u,%u", &Out[0], &Out[1], &Out[2]) != 3)
        throw std::runtime_error(S.Where + ": expected X,Y,Z, found '" + T +
                                 "'");
    };
    Dims(Tok[2], S.Grid);
    Dims(Tok[3], S.Block);
    S.DynamicShared = static_cast<uint32_t>(std::stoul(Tok[4]));
    for (size_t I = 5; I < Tok.size(); ++I) {
      ParamSpec P;
      std::string &T = Tok[I];
      size_t C1 = T.find(':');
      if (C1 == std::string::npos)
        throw std::runtime_error(S.Where + ": bad parameter '" + T + "'");
      std::string Kind = T.substr(0, C1), Rest = T.substr(C1 + 1);
      if (Kind == "in" || Kind == "out" || Kind == "inout" || Kind == "zero") {
        P.K = Kind == "in"      ? ParamSpec::In
              : Kind == "out"   ? ParamSpec::Out
              : Kind == "inout" ? ParamSpec::InOut
                                : ParamSpec::Zero;
        size_t C2 = Rest.find(':');
        if (C2 == std::string::npos)
          throw std::runtime_error(S.Where + ": bad buffer '" + T + "'");
        P.Type = Rest.substr(0, C2);
        P.Count = std::stoull(Rest.substr(C2 + 1));
        elementBytes(P.Type, S.Where);
      } else {
        P.Type = Kind;
        P.ScalarBytes = scalarBytes(Kind, Rest, S.Where);
      }
      S.Params.push_back(std::move(P));
    }
    Specs.push_back(std::move(S));
  }
  return Specs;
}

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
    uint32_t Bytes = Spec.DynamicShared +
                     (F == Ptb ? BATON_PTB_DYNAMIC_SHARED_BYTES : 0);
    if (F && Bytes > 48 * 1024)
      check(D.cuFuncSetAttribute(
                F, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                static_cast<int>(Bytes)),
            Spec.Where + ": dynamic shared memory");
  }
  for (size_t I = 0; I < Spec.Params.size(); ++I) {
    const ParamSpec &P = Spec.Params[I];
    if (P.K == ParamSpec::Scalar) {
      Buffers.push_back(0);
      Init.emplace_back();
      continue;
    }
    size_t Bytes = P.Count * elementBytes(P.Type, Spec.Where);
    CUdeviceptr Ptr;
    check(D.cuMemAlloc(&Ptr, Bytes ? Bytes : 1), Spec.Where + ": cuMemAlloc");
    Buffers.push_back(Ptr);
    if (P.K == ParamSpec::Out || P.K == ParamSpec::Zero)
      Init.emplace_back(Bytes, P.K == ParamSpec::Out ? 0xAB : 0);
    else
      Init.push_back(fill(P.Type, P.Count, 1000 + static_cast<uint32_t>(I)));
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
                       uint32_t GZ, bool WithTask, uint32_t ExtraShared) {
  std::vector<void *> Args;
  for (size_t I = 0; I < Spec.Params.size(); ++I)
    Args.push_back(Buffers[I] ? static_cast<void *>(&Buffers[I])
                              : const_cast<uint8_t *>(
                                    Spec.Params[I].ScalarBytes.data()));
  if (WithTask)
    Args.push_back(&Task);
  check(driver().cuLaunchKernel(F, GX, GY, GZ, Spec.Block[0], Spec.Block[1],
                                Spec.Block[2], Spec.DynamicShared + ExtraShared,
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
  T.grid_x = S.Grid[0];
  T.grid_y = S.Grid[1];
  T.grid_z = S.Grid[2];
  T.begin = Begin;
  T.end = End;
  T.next = Begin;
  return T;
}

void KernelRun::launchOriginal(CUstream S) {
  launch(Original, S, Spec.Grid[0], Spec.Grid[1], Spec.Grid[2], false);
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

void KernelRun::writeTaskForPtb(uint32_t Flags, uint32_t ClaimChunk) {
  baton_task T = freshTask(Spec, 0, Spec.blocks());
  T.flags = Flags;
  T.claim_chunk = ClaimChunk;
  writeTask(T);
}

void KernelRun::launchPtbKernel(CUstream S, uint32_t Workers) {
  launch(Ptb, S, Workers, 1, 1, true, BATON_PTB_DYNAMIC_SHARED_BYTES);
}

uint32_t KernelRun::maxPtbWorkers() {
  int PerSm = 0;
  check(driver().cuOccupancyMaxActiveBlocksPerMultiprocessor(
            &PerSm, Ptb, static_cast<int>(Spec.Block[0] * Spec.Block[1] *
                                          Spec.Block[2]),
            Spec.DynamicShared + BATON_PTB_DYNAMIC_SHARED_BYTES),
        "occupancy");
  return static_cast<uint32_t>(std::max(1, PerSm) * G.smCount());
}

KernelRun::PtbOutcome
KernelRun::runPtb(uint32_t Workers,
                  const std::function<double(unsigned)> &PauseAfter,
                  uint32_t Flags, uint32_t ClaimChunk,
                  const std::function<uint32_t(unsigned)> &Watermark) {
  PtbOutcome Out;
  writeTaskForPtb(Flags, ClaimChunk);
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
  S.Block[0] = 128;
  S.Grid[0] = Blocks;
  ParamSpec Buffer;
  Buffer.K = ParamSpec::InOut;
  Buffer.Type = BufferType;
  Buffer.Count = BufferCount;
  ParamSpec Spin;
  Spin.Type = "u32";
  Spin.ScalarBytes.resize(sizeof SpinNs);
  std::memcpy(Spin.ScalarBytes.data(), &SpinNs, sizeof SpinNs);
  S.Params = {Buffer, Spin};
  S.Where = Where;
  return S;
}

} // namespace baton::gpu
