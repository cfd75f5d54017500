//===- Cubin.h - Kernel names of a cubin ------------------------*- C++ -*-===//
//
// A SASS-only entry cannot be transformed, but users need to know which
// kernels that leaves untouched: the cubin's symbol table marks each kernel
// entry point as an STT_FUNC symbol with the CUDA entry bit (0x10) in
// st_other.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_FATBIN_CUBIN_H
#define BATON_FATBIN_CUBIN_H

#include "baton/Fatbin/Error.h"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace baton::fatbin {

/// Appends the kernel names of a cubin, in symbol table order. Base is the
/// cubin's offset for error messages (0 for a decompressed payload).
std::optional<Error> cubinKernels(std::span<const uint8_t> Cubin,
                                  const std::string &File, uint64_t Base,
                                  std::vector<std::string> &Out);

} // namespace baton::fatbin

#endif // BATON_FATBIN_CUBIN_H
