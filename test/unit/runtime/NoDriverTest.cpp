//===- NoDriverTest.cpp - Behaviour on machines without a CUDA driver ------===//
//
// CI has no GPU and no libcuda.so.1: the library must load, and every entry
// point must fail with a clear "CUDA driver not available" error instead of
// crashing. Where a driver is installed these tests skip themselves.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

#include "baton/Runtime.h"
#include "baton/baton.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

using namespace baton;

namespace {

bool driverInstalled() {
  void *H = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (H)
    dlclose(H);
  return H != nullptr;
}

TEST(NoDriver, RuntimeThrowsDriverUnavailable) {
  if (driverInstalled())
    GTEST_SKIP() << "libcuda.so.1 is installed";
  try {
    Runtime Rt;
    FAIL() << "expected an error";
  } catch (const Error &E) {
    EXPECT_EQ(E.kind(), ErrorKind::DriverUnavailable);
    EXPECT_EQ(std::string(E.what()).rfind("CUDA driver not available: ", 0),
              0u)
        << E.what();
    EXPECT_NE(std::string(E.what()).find("libcuda.so.1"), std::string::npos);
  }
}

TEST(NoDriver, EveryAttemptFailsTheSameWay) {
  if (driverInstalled())
    GTEST_SKIP() << "libcuda.so.1 is installed";
  for (int I = 0; I < 2; ++I)
    EXPECT_THROW(baton::detail::driver(), Error);
}

TEST(NoDriver, ResultsAreDescribedWithoutTheDriver) {
  if (driverInstalled())
    GTEST_SKIP() << "libcuda.so.1 is installed";
  EXPECT_EQ(baton::detail::describe(CUDA_ERROR_ILLEGAL_ADDRESS),
            "CUresult 700");
}

TEST(NoDriver, CApiReportsStatusAndMessage) {
  if (driverInstalled())
    GTEST_SKIP() << "libcuda.so.1 is installed";
  baton_runtime Rt = nullptr;
  EXPECT_EQ(baton_runtime_create(0, BATON_PREEMPT_STREAM_WRITE, &Rt),
            BATON_ERROR_DRIVER_UNAVAILABLE);
  EXPECT_EQ(Rt, nullptr);
  EXPECT_EQ(std::string(baton_last_error()).rfind("CUDA driver not available",
                                                  0),
            0u);
}

TEST(CApi, NullArgumentsAreInvalidArguments) {
  EXPECT_EQ(baton_runtime_create(0, BATON_PREEMPT_STREAM_WRITE, nullptr),
            BATON_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(baton_last_error()), "");
  baton_module M = nullptr;
  EXPECT_EQ(baton_module_load_ptx(nullptr, ".version 8.0", &M),
            BATON_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(baton_launch_pause(nullptr, nullptr), BATON_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(baton_kernel_has_variant(nullptr, BATON_MODE_PTB), 0);
  baton_launch_destroy(nullptr); // like free(NULL)
}

} // namespace
