//===- ObjectContainingTest.cpp - Finding the object behind an address ----===//
//
// The launch shim builds the variants of a -baton-lazy object at its first
// launch, from the object holding the launched kernel's host stub: the
// executable, or the shared library the stub lives in.
//
//===----------------------------------------------------------------------===//

#include "LazyVariants.h"

#include <gtest/gtest.h>

#include <gnu/libc-version.h>

using namespace baton;

namespace {

int functionOfThisExecutable() { return 42; }
int DataOfThisExecutable = 1;

TEST(ObjectContaining, TheExecutable) {
  auto Self = std::filesystem::canonical("/proc/self/exe");
  EXPECT_EQ(objectContaining(reinterpret_cast<const void *>(
                &functionOfThisExecutable)),
            Self);
  EXPECT_EQ(objectContaining(&DataOfThisExecutable), Self);
}

TEST(ObjectContaining, ASharedLibrary) {
  // Not a function the sanitizers intercept (their fopen is libasan's).
  auto Libc = objectContaining(
      reinterpret_cast<const void *>(&gnu_get_libc_version));
  ASSERT_TRUE(Libc.has_value());
  EXPECT_NE(*Libc, std::filesystem::canonical("/proc/self/exe"));
  EXPECT_NE(Libc->filename().string().find("libc"), std::string::npos)
      << *Libc;
}

TEST(ObjectContaining, NoObject) {
  EXPECT_FALSE(objectContaining(nullptr).has_value());
  int OnTheStack = 0;
  EXPECT_FALSE(objectContaining(&OnTheStack).has_value());
}

} // namespace
