//===- Cubin.h - Kernel names and registers of a cubin ----------*- C++ -*-===//
//
// A SASS-only entry cannot be transformed, but users need to know which
// kernels that leaves untouched: the cubin's symbol table marks each kernel
// entry point as an STT_FUNC symbol with the CUDA entry bit (0x10) in
// st_other.
//
// The register count of each function is an attribute in the cubin's
// `.nv.info` section: records of {format u8, attribute u8, u16}, where
// format 4 means the u16 is the size of a payload that follows; attribute
// 0x2f (REGCOUNT) has the payload {symbol index u32, registers u32}.
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

/// One function's register count, as ptxas allocated it.
struct FunctionRegisters {
  std::string Name;
  uint32_t Registers = 0;
};

/// Appends the register count of every function the cubin records one for
/// (kernels and non-inlined device functions), in `.nv.info` order.
std::optional<Error> cubinRegisters(std::span<const uint8_t> Cubin,
                                    const std::string &File, uint64_t Base,
                                    std::vector<FunctionRegisters> &Out);

} // namespace baton::fatbin

#endif // BATON_FATBIN_CUBIN_H
