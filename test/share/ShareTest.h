//===- ShareTest.h - Helpers of the sharing library's tests -----*- C++ -*-===//
//
// Each test gets a registry of its own (a unique shm name, removed at the
// end), so tests neither see each other nor a real registry of the user.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_TEST_SHARE_SHARETEST_H
#define BATON_TEST_SHARE_SHARETEST_H

#include "baton/share.h"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace baton::share::test {

/// A fresh registry name, unlinked on destruction.
class ScratchRegistry {
public:
  ScratchRegistry() {
    static std::atomic<unsigned> Counter{0};
    Name = "/baton-test-" + std::to_string(getpid()) + "-" +
           std::to_string(Counter++);
    shm_unlink(Name.c_str());
  }
  ~ScratchRegistry() { shm_unlink(Name.c_str()); }
  const char *name() const { return Name.c_str(); }

private:
  std::string Name;
};

/// The processes baton_share_list reads from \p Registry.
inline std::vector<baton_share_process> listOf(const char *Registry) {
  std::vector<baton_share_process> Out(BATON_SHARE_MAX_PROCESSES);
  size_t Count = 0;
  if (baton_share_list(Registry, 0, Out.data(), Out.size(), &Count) !=
      BATON_SHARE_OK)
    return {};
  Out.resize(Count);
  return Out;
}

/// Polls \p Done every millisecond until it holds or \p Limit passes.
/// Returns how long it took, or Limit if it never held.
inline std::chrono::milliseconds
waitFor(const std::function<bool()> &Done,
        std::chrono::milliseconds Limit = std::chrono::seconds(5)) {
  auto Start = std::chrono::steady_clock::now();
  for (;;) {
    auto Took = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - Start);
    if (Done())
      return Took;
    if (Took >= Limit)
      return Limit;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

inline uint64_t outstanding(baton_share S) {
  uint64_t N = ~uint64_t(0);
  baton_share_lc_outstanding(S, &N);
  return N;
}

} // namespace baton::share::test

#endif // BATON_TEST_SHARE_SHARETEST_H
