//===- SliceFeeder.cpp - The thread that keeps slice launches fed ---------===//

#include "SliceFeeder.h"

#include "Driver.h"
#include "Impl.h"

#include "baton/Capture.h"

#include <cstdio>

using namespace baton::detail;

std::shared_ptr<SliceFeeder> SliceFeeder::start(CUcontext Context) {
  std::shared_ptr<SliceFeeder> F(new SliceFeeder(Context));
  // The thread owns a reference so that stop() from the thread itself
  // cannot destroy the object under it.
  F->Thread = std::thread([Self = F] { Self->run(); });
  return F;
}

void SliceFeeder::add(std::weak_ptr<LaunchImpl> Launch) {
  {
    std::lock_guard Lock(Mutex);
    Active.push_back(std::move(Launch));
    Dirty = true;
  }
  Wake.notify_one();
}

void SliceFeeder::notify() {
  {
    std::lock_guard Lock(Mutex);
    Dirty = true;
  }
  Wake.notify_one();
}

void SliceFeeder::stop() {
  {
    std::lock_guard Lock(Mutex);
    Stopping = true;
  }
  Wake.notify_one();
  if (Thread.get_id() == std::this_thread::get_id())
    Thread.detach();
  else if (Thread.joinable())
    Thread.join();
}

void SliceFeeder::run() {
  if (CUresult R = driver().cuCtxSetCurrent(Context); R != CUDA_SUCCESS) {
    // Every slice launch would then stall; launches record the failure when
    // they try to issue on their own threads, so report it once here.
    std::fprintf(stderr, "baton: slice feeder cannot use the context: %s\n",
                 describe(R).c_str());
    return;
  }
  relaxCaptureModeForThisThread();
  std::vector<std::weak_ptr<LaunchImpl>> Work;
  for (;;) {
    {
      std::unique_lock Lock(Mutex);
      Wake.wait(Lock, [&] { return Dirty || Stopping; });
      if (Stopping)
        return;
      Dirty = false;
      Work = Active;
    }
    std::vector<std::weak_ptr<LaunchImpl>> Retired;
    for (std::weak_ptr<LaunchImpl> &Weak : Work) {
      std::shared_ptr<LaunchImpl> L = Weak.lock();
      if (!L || !L->feedSlices())
        Retired.push_back(Weak);
    }
    if (Retired.empty())
      continue;
    std::lock_guard Lock(Mutex);
    std::erase_if(Active, [&](const std::weak_ptr<LaunchImpl> &A) {
      for (const std::weak_ptr<LaunchImpl> &R : Retired)
        if (!A.owner_before(R) && !R.owner_before(A))
          return true;
      return false;
    });
  }
}
