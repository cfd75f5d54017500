//===- RouteLaunches.h - Route host-side kernel launches to the shim ------===//
//
// The host half of the plugin: in the host compilation of a CUDA program,
// launches of kernels go to baton_cudaLaunchKernel (baton/cuda_launch.h)
// instead of cudaLaunchKernel, so the runtime's scheduler decides how each
// one runs. See RouteLaunches.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_LLVM_ROUTELAUNCHES_H
#define BATON_LIB_LLVM_ROUTELAUNCHES_H

#include "llvm/IR/PassManager.h"

namespace baton {

class RouteLaunchesPass : public llvm::PassInfoMixin<RouteLaunchesPass> {
public:
  /// With \p LazyVariants, a module that registers kernels also gets a
  /// constructor that calls baton_cuda_lazy_variants with an address in
  /// this object, so that the shim builds its kernels' variants at their
  /// first launch (the device side of a -baton-lazy build adds none).
  explicit RouteLaunchesPass(bool LazyVariants = false)
      : LazyVariants(LazyVariants) {}
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  /// Also at -O0: a launch must reach the scheduler however it was built.
  static bool isRequired() { return true; }

private:
  bool LazyVariants;
};

} // namespace baton

#endif // BATON_LIB_LLVM_ROUTELAUNCHES_H
