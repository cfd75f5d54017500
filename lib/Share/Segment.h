//===- Segment.h - The registry's shared-memory segment ---------*- C++ -*-===//
//
// Opens (and for a joining process creates) the POSIX shared-memory segment
// of a registry, maps it, and checks that it has this library's layout.
//
// Creation races with other processes joining at the same moment, and a
// creator may die half-way. So there is no creator: every joiner opens with
// O_CREAT, sizes the segment if it is empty (ftruncate zero-fills, and a
// zeroed slot is a free one), and, while Magic is not yet set, writes the
// header itself and publishes Magic last. The header holds only constants
// of the layout, so joiners that race write the same values.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_SHARE_SEGMENT_H
#define BATON_LIB_SHARE_SEGMENT_H

#include "Layout.h"

#include <string>

namespace baton::share {

/// "/baton-<uid>-gpu<device>", or $BATON_SHARE_REGISTRY.
std::string defaultRegistryName(int Device);

class Segment {
public:
  enum class Access {
    Join,    ///< read-write; created if missing
    Observe, ///< read-only; BATON_SHARE_ERROR_NOT_FOUND if missing
  };
  /// Throws Failure: BATON_SHARE_ERROR_VERSION for another layout (or a
  /// file that is not a registry), NOT_FOUND, SYSTEM.
  Segment(const std::string &Name, Access Mode);
  ~Segment();
  Segment(const Segment &) = delete;
  Segment &operator=(const Segment &) = delete;

  Registry &registry() const { return *Map; }
  const std::string &name() const { return Name; }
  /// Keeps the mapping after destruction: the GPU may still write it
  /// (StreamEnd.h), and memory it writes must stay mapped and pinned.
  void leak() { Leaked = true; }

private:
  void initialise();
  void checkHeader() const;

  std::string Name;
  Registry *Map = nullptr;
  bool Leaked = false;
};

} // namespace baton::share

#endif // BATON_LIB_SHARE_SEGMENT_H
