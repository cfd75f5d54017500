//===- Cache.cpp - Cache directory, stamps and indexes --------------------===//
#include "baton/SideModule/Cache.h"

#include "baton/SideModule/Sha256.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

using namespace baton::side;
namespace fs = std::filesystem;

namespace {

struct FileStamp {
  uint64_t Size = 0;
  uint64_t MtimeNs = 0;
};

std::optional<FileStamp> statFile(const fs::path &File) {
  struct stat St;
  if (::stat(File.c_str(), &St) != 0)
    return std::nullopt;
  return FileStamp{uint64_t(St.st_size),
                   uint64_t(St.st_mtim.tv_sec) * 1000000000u +
                       uint64_t(St.st_mtim.tv_nsec)};
}

fs::path stampPath(const fs::path &Root, const fs::path &File) {
  std::error_code EC;
  fs::path Canonical = fs::weakly_canonical(fs::absolute(File, EC), EC);
  const std::string &Text = Canonical.native();
  return Root / "stamps" /
         sha256Hex({reinterpret_cast<const uint8_t *>(Text.data()),
                    Text.size()});
}

std::optional<std::string> readStamp(const fs::path &Path,
                                     const FileStamp &Now) {
  std::ifstream In(Path);
  FileStamp Then;
  std::string Hash;
  if (!(In >> Then.Size >> Then.MtimeNs >> Hash) || Then.Size != Now.Size ||
      Then.MtimeNs != Now.MtimeNs || Hash.size() != 64)
    return std::nullopt;
  return Hash;
}

/// Best effort: a cache that cannot be written only costs a rehash later.
void writeStamp(const fs::path &Path, const FileStamp &Now,
                const std::string &Hash) {
  std::error_code EC;
  fs::create_directories(Path.parent_path(), EC);
  fs::path Temp = Path;
  Temp += ".tmp." + std::to_string(::getpid());
  {
    std::ofstream Out(Temp);
    Out << Now.Size << " " << Now.MtimeNs << " " << Hash << "\n";
    if (!Out)
      return;
  }
  fs::rename(Temp, Path, EC);
  if (EC)
    fs::remove(Temp, EC);
}

} // namespace

std::optional<fs::path> baton::side::defaultCacheRoot() {
  if (const char *Dir = std::getenv("BATON_CACHE_DIR"); Dir && *Dir)
    return fs::path(Dir);
  if (const char *Xdg = std::getenv("XDG_CACHE_HOME"); Xdg && *Xdg)
    return fs::path(Xdg) / "baton";
  if (const char *Home = std::getenv("HOME"); Home && *Home)
    return fs::path(Home) / ".cache" / "baton";
  return std::nullopt;
}

fs::path baton::side::sideModuleDir(const fs::path &Root,
                                    const std::string &Hash) {
  return Root / Hash;
}

std::optional<std::string> baton::side::contentHash(const fs::path &Root,
                                                    const fs::path &File,
                                                    std::string &Error) {
  std::optional<FileStamp> Before = statFile(File);
  if (!Before) {
    Error = File.string() + ": cannot stat: " + std::strerror(errno);
    return std::nullopt;
  }
  fs::path Stamp = stampPath(Root, File);
  if (std::optional<std::string> Known = readStamp(Stamp, *Before))
    return Known;
  std::optional<std::string> Hash = sha256File(File, Error);
  // A file rewritten while it was read has no trustworthy hash to stamp.
  std::optional<FileStamp> After = statFile(File);
  if (Hash && After && After->Size == Before->Size &&
      After->MtimeNs == Before->MtimeNs)
    writeStamp(Stamp, *Before, *Hash);
  return Hash;
}

std::optional<Index> baton::side::readIndex(const fs::path &Dir,
                                            std::string &Error) {
  fs::path Path = Dir / IndexFileName;
  std::ifstream In(Path, std::ios::binary);
  if (!In) {
    Error = Path.string() + ": no side-module index";
    return std::nullopt;
  }
  std::ostringstream Text;
  Text << In.rdbuf();
  Index I;
  if (std::optional<std::string> Err = parseIndex(Text.str(), I)) {
    Error = Path.string() + ": " + *Err;
    return std::nullopt;
  }
  return I;
}
