//===- Router.h - Launches the Python package hands to the scheduler -*- C++ -*-===//
//
// The process-wide router of baton._core. It does for the launches the
// Python package sees (Triton kernels, named by their CUfunction, with their
// arguments packed by the package) what lib/LaunchShim's router does for the
// `<<<...>>>` launches of plugin-built code: it finds the kernel's variants,
// turns each launch into a Work for one SchedulerService on the caller's
// stream, and brackets latency-critical work that the scheduler does not
// launch itself.
//
// Two ways to find a kernel's variants:
//  * bind(): beside the kernel in the module its loader made (Triton's
//    cubin holds them when the PTX stage hook added them);
//  * bindImage(): in a cubin that the package assembled from the kernel's
//    PTX after it was loaded (Triton and Inductor cache cubins under keys
//    that do not know about Baton, and compile in worker processes where no
//    hook runs). The image is loaded once into the primary context.
//
// Latency-critical brackets come two ways: explicit (lcBegin/lcEnd, as
// baton_lc_begin/end of the shim), or automatic: lcTouch() opens a bracket
// when LC work is queued and a watcher thread closes it once every stream
// touched is idle and none was touched for a grace period, so a thread that
// only launches kernels needs no bracket of its own.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_PYTHON_ROUTER_H
#define BATON_PYTHON_ROUTER_H

#include "baton/SchedulerService.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace baton::python {

struct KernelBinding {
  std::string Name;
  bool Slice = false;
  bool Ptb = false;
  std::vector<size_t> ParamSizes;
  /// The variants come from an image the package assembled (bindImage).
  bool OwnModule = false;
};

struct RouterStats {
  uint64_t LatencyCritical = 0;
  uint64_t BestEffort = 0;
  uint64_t Resumes = 0;
  uint64_t Pauses = 0;
  uint64_t Brackets = 0;     ///< explicit LC brackets opened
  uint64_t AutoBrackets = 0; ///< automatic LC brackets opened
};

class Router {
public:
  /// The process's router, created on first use (a runtime for device 0 and
  /// its scheduler thread); throws baton::Error if the runtime cannot start,
  /// and then again on every call. Never destroyed: the process may exit
  /// with its threads parked.
  static Router &get();
  static bool running();

  KernelBinding bind(CUfunction Function);
  KernelBinding bindImage(CUfunction Function,
                          std::span<const std::byte> Image,
                          const std::string &Name);
  /// Best-effort work on \p Stream (null: the legacy default stream), in
  /// the order of that stream. \p Params: the values back to back.
  void submit(CUfunction Function, Dim3 Grid, Dim3 Block, uint32_t Shared,
              CUstream Stream, std::span<const std::byte> Params);

  uint64_t lcBegin(uint32_t Sms);
  void lcEnd(uint64_t Id);
  void lcTouch(CUstream Stream, uint32_t Sms, std::chrono::microseconds Grace);
  bool lcActive();

  void synchronize();
  RouterStats stats();

  Router(const Router &) = delete;
  Router &operator=(const Router &) = delete;

private:
  Router();
  ~Router();
  struct Impl;
  Impl *P;
};

} // namespace baton::python

#endif // BATON_PYTHON_ROUTER_H
