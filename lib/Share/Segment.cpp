//===- Segment.cpp - Open, create and check a registry segment ------------===//

#include "Segment.h"

#include "Error.h"
#include "Process.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

using namespace baton::share;

void baton::share::throwErrno(const std::string &What) {
  throw Failure(BATON_SHARE_ERROR_SYSTEM, What + ": " + std::strerror(errno));
}

std::string baton::share::defaultRegistryName(int Device) {
  if (const char *Env = std::getenv("BATON_SHARE_REGISTRY"); Env && *Env)
    return Env;
  return "/baton-" + std::to_string(getuid()) + "-gpu" + std::to_string(Device);
}

namespace {

constexpr size_t SegmentBytes = sizeof(Registry);

/// Where Linux keeps a POSIX shm name, for messages that tell the user
/// what to remove.
std::string pathOf(const std::string &Name) { return "/dev/shm" + Name; }

std::string versionAdvice(const std::string &Name) {
  return "; processes built with different Baton versions cannot share a "
         "registry: once none of them runs, remove " + pathOf(Name) +
         ", or give one side another BATON_SHARE_REGISTRY";
}

/// The error for a segment of the wrong size: another layout version, or
/// a file that is no registry at all.
[[noreturn]] void throwForeign(int Fd, const std::string &Name, off_t Size) {
  uint64_t Head[2] = {0, 0}; // Magic, then Version and Bytes
  if (Size >= off_t(sizeof(Head)) &&
      pread(Fd, Head, sizeof(Head), 0) == ssize_t(sizeof(Head)) &&
      Head[0] == Magic)
    throw Failure(BATON_SHARE_ERROR_VERSION,
                  "registry " + Name + " has layout version " +
                      std::to_string(uint32_t(Head[1])) + " (" +
                      std::to_string(Size) + " bytes); this library uses "
                      "version " + std::to_string(Version) + " (" +
                      std::to_string(SegmentBytes) + " bytes)" +
                      versionAdvice(Name));
  throw Failure(BATON_SHARE_ERROR_VERSION,
                Name + " (" + std::to_string(Size) +
                    " bytes) is not a Baton registry; remove " + pathOf(Name) +
                    " or choose another BATON_SHARE_REGISTRY");
}

} // namespace

Segment::Segment(const std::string &RegistryName, Access Mode)
    : Name(RegistryName) {
  if (Name.size() < 2 || Name[0] != '/' ||
      Name.find('/', 1) != std::string::npos || Name.size() > 200)
    throw Failure(BATON_SHARE_ERROR_INVALID_ARGUMENT,
                  "registry name '" + Name + "' is not of the form /name");
  bool Join = Mode == Access::Join;
  int Fd = shm_open(Name.c_str(), Join ? O_RDWR | O_CREAT : O_RDONLY, 0600);
  if (Fd < 0) {
    if (!Join && errno == ENOENT)
      throw Failure(BATON_SHARE_ERROR_NOT_FOUND,
                    "no registry " + Name + ": no process has joined it");
    throwErrno("shm_open(" + Name + ")");
  }
  struct stat St;
  if (fstat(Fd, &St) != 0) {
    close(Fd);
    throwErrno("fstat(" + pathOf(Name) + ")");
  }
  // Joiners that race all set the same size; one of another layout version
  // makes the sizes differ, which is what throwForeign reports.
  if (Join && St.st_size == 0 &&
      (ftruncate(Fd, SegmentBytes) != 0 || fstat(Fd, &St) != 0)) {
    close(Fd);
    throwErrno("sizing " + pathOf(Name));
  }
  if (St.st_size != off_t(SegmentBytes)) {
    if (!Join && St.st_size == 0) {
      close(Fd);
      throw Failure(BATON_SHARE_ERROR_NOT_FOUND,
                    "registry " + Name + " is being created");
    }
    struct Closer {
      int Fd;
      ~Closer() { close(Fd); }
    } C{Fd};
    throwForeign(Fd, Name, St.st_size);
  }
  void *P = mmap(nullptr, SegmentBytes, Join ? PROT_READ | PROT_WRITE : PROT_READ,
                 MAP_SHARED, Fd, 0);
  close(Fd); // the mapping keeps the segment
  if (P == MAP_FAILED)
    throwErrno("mmap(" + pathOf(Name) + ")");
  Map = static_cast<Registry *>(P);
  try {
    if (Join)
      initialise();
    else if (field(Map->Head.Magic).load(std::memory_order_acquire) == 0)
      throw Failure(BATON_SHARE_ERROR_NOT_FOUND,
                    "registry " + Name + " is being created");
    checkHeader();
  } catch (...) {
    munmap(Map, SegmentBytes);
    throw;
  }
}

Segment::~Segment() {
  if (!Leaked)
    munmap(Map, SegmentBytes);
}

void Segment::initialise() {
  Header &H = Map->Head;
  if (field(H.Magic).load(std::memory_order_acquire) != 0)
    return;
  // Relaxed stores, then Magic with release: a process that reads Magic
  // with acquire (checkHeader, every later joiner) sees these fields.
  field(H.Version).store(Version, std::memory_order_relaxed);
  field(H.Bytes).store(uint32_t(SegmentBytes), std::memory_order_relaxed);
  field(H.Slots).store(SlotCount, std::memory_order_relaxed);
  uint64_t Unset = 0;
  field(H.CreatedNs).compare_exchange_strong(Unset, nowNs(),
                                             std::memory_order_relaxed);
  uint64_t Zero = 0;
  field(H.Magic).compare_exchange_strong(Zero, Magic,
                                         std::memory_order_release,
                                         std::memory_order_relaxed);
}

void Segment::checkHeader() const {
  const Header &H = Map->Head;
  uint64_t M = field(H.Magic).load(std::memory_order_acquire);
  uint32_t V = field(H.Version).load(std::memory_order_relaxed);
  uint32_t Bytes = field(H.Bytes).load(std::memory_order_relaxed);
  uint32_t Slots = field(H.Slots).load(std::memory_order_relaxed);
  if (M != Magic)
    throw Failure(BATON_SHARE_ERROR_VERSION,
                  pathOf(Name) + " is not a Baton registry; remove it or "
                                 "choose another BATON_SHARE_REGISTRY");
  if (V != Version || Bytes != SegmentBytes || Slots != SlotCount)
    throw Failure(BATON_SHARE_ERROR_VERSION,
                  "registry " + Name + " has layout version " +
                      std::to_string(V) + " (" + std::to_string(Bytes) +
                      " bytes, " + std::to_string(Slots) +
                      " slots); this library uses version " +
                      std::to_string(Version) + versionAdvice(Name));
}
