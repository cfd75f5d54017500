//===- ArgPack.h - An owned copy of a kernel's arguments -------*- C++ -*-===//
//
// cuLaunchKernel copies argument values when it is called, but a Baton launch
// calls it again later: on every resume, and for every slice. So the launch
// keeps its own copy of the values, laid out from the parameter sizes the
// driver reports (cuFuncGetParamInfo), with the task pointer appended as the
// variant's last parameter.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_RUNTIME_ARGPACK_H
#define BATON_LIB_RUNTIME_ARGPACK_H

#include <cuda.h>

#include <cstddef>
#include <span>
#include <vector>

namespace baton::detail {

class ArgPack {
public:
  ArgPack() = default;
  /// Copies \p Args[i] (ParamSizes[i] bytes each), then \p Task as the last
  /// argument. The caller has checked that the counts match.
  ArgPack(std::span<const size_t> ParamSizes, std::span<void *const> Args,
          CUdeviceptr Task);
  ArgPack(const ArgPack &) = delete;
  ArgPack &operator=(const ArgPack &) = delete;
  ArgPack(ArgPack &&) = default;
  ArgPack &operator=(ArgPack &&) = default;

  /// The `kernelParams` array for cuLaunchKernel; valid while *this lives.
  void **kernelParams() { return Pointers.data(); }
  size_t size() const { return Pointers.size(); }

private:
  std::vector<std::max_align_t> Storage; // aligned for any parameter type
  std::vector<void *> Pointers;
};

} // namespace baton::detail

#endif // BATON_LIB_RUNTIME_ARGPACK_H
