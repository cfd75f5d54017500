//===- Catalogue.cpp - Which kernels have variants, and where -------------===//
#include "Catalogue.h"

#include "Report.h"

#include "baton/Fatbin/Elf.h"
#include "baton/Fatbin/Scan.h"
#include "baton/SideModule/Cache.h"
#include "baton/task.h"

#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <vector>

using namespace baton;
using namespace baton::preload;
namespace fs = std::filesystem;

namespace {

/// True if the ELF file at \p Path has a fatbin section. Only the headers
/// are read (through a mapping), not the library.
bool holdsFatbins(const std::string &Path) {
  int Fd = ::open(Path.c_str(), O_RDONLY | O_CLOEXEC);
  if (Fd < 0)
    return false;
  struct stat St;
  void *Map = MAP_FAILED;
  if (::fstat(Fd, &St) == 0 && St.st_size > 0)
    Map = ::mmap(nullptr, size_t(St.st_size), PROT_READ, MAP_PRIVATE, Fd, 0);
  ::close(Fd);
  if (Map == MAP_FAILED)
    return false;
  std::span<const uint8_t> Bytes(static_cast<const uint8_t *>(Map),
                                 size_t(St.st_size));
  std::vector<fatbin::ElfSection> Sections;
  bool Found = false;
  if (fatbin::isElf(Bytes) &&
      !fatbin::readElfSections(Bytes, Path, 0, Sections))
    for (const fatbin::ElfSection &S : Sections)
      for (const char *Name : fatbin::FatbinSections)
        Found |= S.Name == Name;
  ::munmap(Map, size_t(St.st_size));
  return Found;
}

struct LoadedObjects {
  uint64_t Adds = 0;
  std::vector<std::string> Paths;
};

LoadedObjects loadedObjects() {
  LoadedObjects Objects;
  dl_iterate_phdr(
      [](dl_phdr_info *Info, size_t, void *Data) {
        auto *Out = static_cast<LoadedObjects *>(Data);
        Out->Adds = Info->dlpi_adds;
        // The executable has an empty name.
        Out->Paths.push_back(Info->dlpi_name && *Info->dlpi_name
                                 ? Info->dlpi_name
                                 : "/proc/self/exe");
        return 0;
      },
      &Objects);
  return Objects;
}

} // namespace

Catalogue::Catalogue() {
  if (const char *List = std::getenv("BATON_SIDE_MODULE"); List && *List) {
    std::string_view Rest = List;
    while (!Rest.empty()) {
      size_t Colon = Rest.find(':');
      std::string_view Dir = Rest.substr(0, Colon);
      if (!Dir.empty())
        add(fs::path(Dir), "BATON_SIDE_MODULE");
      Rest = Colon == std::string_view::npos ? "" : Rest.substr(Colon + 1);
    }
    return;
  }
  Root = side::defaultCacheRoot();
  Discovering = Root.has_value();
  if (!Discovering)
    report("no cache directory (set BATON_CACHE_DIR or HOME): no side "
           "modules are looked for");
}

void Catalogue::add(const fs::path &Dir, const std::string &Origin) {
  std::string Error;
  std::optional<side::Index> I = side::readIndex(Dir, Error);
  if (!I) {
    report("side module ignored: " + Error);
    return;
  }
  if (unsigned Abi = side::taskAbiVersion(I->BatonVersion);
      Abi != BATON_TASK_ABI_VERSION) {
    report("side module " + Dir.string() + " ignored: its variants use task "
           "ABI " + std::to_string(Abi) + ", this runtime " +
           std::to_string(BATON_TASK_ABI_VERSION) +
           " (rebuild it: baton-recompile --force)");
    return;
  }
  unsigned WithVariants = 0;
  Indexes.push_back(std::move(*I));
  for (const side::KernelRecord &K : Indexes.back().Kernels) {
    WithVariants += K.Status == side::KernelStatus::Variants;
    ByName.try_emplace(K.Name, SideKernel{&K, Dir, Origin});
  }
  if (verbose())
    report("side module " + Dir.string() + " for " + Origin + ": " +
           std::to_string(WithVariants) + " of " +
           std::to_string(Indexes.back().Kernels.size()) +
           " kernels with variants");
}

void Catalogue::lookUpObject(const std::string &Path) {
  std::error_code EC;
  fs::path Real = fs::canonical(Path, EC);
  if (EC || !ObjectsSeen.insert(Real.string()).second)
    return;
  if (!holdsFatbins(Real.string()))
    return;
  std::string Error;
  std::optional<std::string> Hash = side::contentHash(*Root, Real, Error);
  if (!Hash) {
    report(Error);
    return;
  }
  fs::path Dir = side::sideModuleDir(*Root, *Hash);
  if (fs::exists(Dir / side::IndexFileName, EC))
    add(Dir, Real.string());
  else if (verbose())
    report("no side module for " + Real.string() +
           " (baton-recompile it to give its kernels variants)");
}

void Catalogue::discover() {
  LoadedObjects Objects = loadedObjects();
  if (Objects.Adds == ObjectsAddedSeen)
    return;
  ObjectsAddedSeen = Objects.Adds;
  for (const std::string &Path : Objects.Paths)
    lookUpObject(Path);
}

std::optional<SideKernel> Catalogue::find(const std::string &Name) {
  auto It = ByName.find(Name);
  if (It == ByName.end() && Discovering) {
    discover();
    It = ByName.find(Name);
  }
  if (It == ByName.end())
    return std::nullopt;
  return It->second;
}
