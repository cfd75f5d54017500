//===- FatbinTestUtil.h - Shared helpers of the fatbin unit tests -*- C++ -*-===//
//
// The inputs are small fatbins and an object built by nvcc 13 from
// test/Fatbin/Inputs/kernels.cu and checked in, so that the unit tests need
// no CUDA toolkit.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_TEST_UNIT_FATBIN_FATBINTESTUTIL_H
#define BATON_TEST_UNIT_FATBIN_FATBINTESTUTIL_H

#include "baton/Fatbin/Scan.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace baton::fatbin::test {

inline std::vector<uint8_t> readInput(const std::string &Name) {
  std::vector<uint8_t> Bytes;
  std::optional<Error> Err =
      readFile(std::string(BATON_FATBIN_INPUTS_DIR) + "/" + Name, Bytes);
  EXPECT_FALSE(Err) << (Err ? Err->str() : "");
  return Bytes;
}

} // namespace baton::fatbin::test

#endif // BATON_TEST_UNIT_FATBIN_FATBINTESTUTIL_H
