//===- FunctionFactsTest.cpp - Driver facts of a function, asked once -----===//
//
// FunctionFacts leaves the driver calls to its caller, so counting the calls
// the callbacks make is counting the driver calls a launch would make.
//
//===----------------------------------------------------------------------===//

#include "FunctionFacts.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace baton;
using namespace baton::detail;

TEST(FunctionFacts, ResourcesAreReadOnce) {
  FunctionFacts F;
  int Reads = 0;
  auto Read = [&] {
    ++Reads;
    return KernelResources{40, 1024};
  };
  for (int I = 0; I < 3; ++I) {
    KernelResources R = F.resources(Read);
    EXPECT_EQ(R.RegistersPerThread, 40u);
    EXPECT_EQ(R.StaticSharedBytes, 1024u);
  }
  EXPECT_EQ(Reads, 1);
}

TEST(FunctionFacts, AFailedReadIsRetried) {
  FunctionFacts F;
  int Reads = 0;
  EXPECT_THROW(F.resources([&]() -> KernelResources {
    ++Reads;
    throw std::runtime_error("driver said no");
  }),
               std::runtime_error);
  KernelResources R = F.resources([&] {
    ++Reads;
    return KernelResources{32, 0};
  });
  EXPECT_EQ(R.RegistersPerThread, 32u);
  EXPECT_EQ(Reads, 2);
}

TEST(FunctionFacts, ConcurrentFirstUsesReadOnce) {
  FunctionFacts F;
  std::atomic<int> Reads{0};
  std::vector<std::thread> Threads;
  for (int T = 0; T < 8; ++T)
    Threads.emplace_back([&] {
      KernelResources R = F.resources([&] {
        ++Reads;
        return KernelResources{64, 8};
      });
      EXPECT_EQ(R.RegistersPerThread, 64u);
    });
  for (std::thread &T : Threads)
    T.join();
  EXPECT_EQ(Reads, 1);
}

TEST(FunctionFacts, SharedMemoryIsRaisedOnlyBeyondWhatWasAllowed) {
  FunctionFacts F;
  std::vector<uint32_t> Raised;
  auto Raise = [&](uint32_t Bytes) { Raised.push_back(Bytes); };
  F.allowSharedMemory(0, Raise);
  F.allowSharedMemory(FunctionFacts::DefaultSharedLimit, Raise);
  EXPECT_TRUE(Raised.empty()); // every function may use 48 KiB
  F.allowSharedMemory(80 * 1024, Raise);
  F.allowSharedMemory(80 * 1024, Raise);
  F.allowSharedMemory(64 * 1024, Raise); // within what was allowed
  F.allowSharedMemory(100 * 1024, Raise);
  EXPECT_EQ(Raised, (std::vector<uint32_t>{80 * 1024, 100 * 1024}));
}

TEST(FunctionFacts, AFailedRaiseIsNotRecorded) {
  FunctionFacts F;
  EXPECT_THROW(F.allowSharedMemory(
                   80 * 1024,
                   [](uint32_t) { throw std::runtime_error("too much"); }),
               std::runtime_error);
  int Raises = 0;
  F.allowSharedMemory(80 * 1024, [&](uint32_t) { ++Raises; });
  EXPECT_EQ(Raises, 1);
}

TEST(FunctionFacts, ConcurrentRaisesLeaveTheLargestLast) {
  // The driver keeps the limit of the last cuFuncSetAttribute; raises must
  // not interleave so that a smaller one lands after a larger one.
  FunctionFacts F;
  std::atomic<uint32_t> DriverLimit{0};
  std::atomic<int> Inside{0};
  std::vector<std::thread> Threads;
  for (uint32_t T = 0; T < 8; ++T)
    Threads.emplace_back([&, T] {
      F.allowSharedMemory((50 + T) * 1024, [&](uint32_t Bytes) {
        EXPECT_EQ(Inside.fetch_add(1), 0);
        DriverLimit = Bytes;
        Inside.fetch_sub(1);
      });
    });
  for (std::thread &T : Threads)
    T.join();
  uint32_t Largest = 57 * 1024;
  F.allowSharedMemory(Largest, [&](uint32_t) { DriverLimit = 0; });
  EXPECT_GE(DriverLimit.load(), Largest);
}
