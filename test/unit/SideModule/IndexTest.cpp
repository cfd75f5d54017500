//===- IndexTest.cpp - Side-module indexes and the cache ------------------===//
#include "baton/SideModule/Cache.h"
#include "baton/SideModule/Index.h"
#include "baton/SideModule/Sha256.h"
#include "baton/task.h"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <map>
#include <thread>

using namespace baton::side;
namespace fs = std::filesystem;

namespace {

Index sample() {
  Index I;
  I.Input = "/opt/lib/libtrain.so";
  I.ContentHash = std::string(64, 'a');
  I.InputSize = 4096;
  I.BatonVersion = "0.1.0";
  I.Archs = {"sm_90", "sm_80"};
  I.Kernels = {
      {"_Z4gemmPKfS0_Pf", KernelStatus::Variants, true, true, "m1.fatbin", "", ""},
      {"_Z3redPf", KernelStatus::Variants, true, false, "m2.fatbin",
       "barrier-reduction", "uses bar.red\tat line 3"},
      {"_Z4syncPf", KernelStatus::Refused, false, false, "", "grid-sync",
       "reads %envreg2"},
      {"_Z4sassPf", KernelStatus::SassOnly, false, false, "", "", "sm_80,sm_90"},
  };
  return I;
}

/// A fresh directory under the system's temporary directory.
fs::path scratch(const std::string &Name) {
  fs::path Dir = fs::temp_directory_path() /
                 ("baton-index-test-" + Name + "-" +
                  std::to_string(::getpid()));
  fs::remove_all(Dir);
  fs::create_directories(Dir);
  return Dir;
}

} // namespace

TEST(SideModuleIndex, RoundTrip) {
  Index I = sample();
  std::string Text = writeIndex(I);
  Index Back;
  ASSERT_FALSE(parseIndex(Text, Back));
  EXPECT_EQ(Back.Input, I.Input);
  EXPECT_EQ(Back.ContentHash, I.ContentHash);
  EXPECT_EQ(Back.InputSize, 4096u);
  EXPECT_EQ(Back.Archs, I.Archs);
  ASSERT_EQ(Back.Kernels.size(), 4u);
  const KernelRecord *Red = Back.find("_Z3redPf");
  ASSERT_TRUE(Red);
  EXPECT_EQ(Red->Status, KernelStatus::Variants);
  EXPECT_TRUE(Red->Slice);
  EXPECT_FALSE(Red->Ptb);
  EXPECT_EQ(Red->Image, "m2.fatbin");
  EXPECT_EQ(Red->Reason, "barrier-reduction");
  EXPECT_EQ(Red->Detail, "uses bar.red at line 3"); // the tab became a space
  EXPECT_EQ(Back.find("_Z4syncPf")->Reason, "grid-sync");
  EXPECT_EQ(Back.find("_Z4sassPf")->Status, KernelStatus::SassOnly);
  EXPECT_EQ(Back.find("_Z4sassPf")->Detail, "sm_80,sm_90");
  EXPECT_EQ(Back.find("_Z5otherv"), nullptr);
  EXPECT_EQ(writeIndex(Back), Text);
}

TEST(SideModuleIndex, DocumentedExampleParses) {
  const char *Text = "baton-side-module\t1\n"
                     "input\t/tmp/libk.so\n"
                     "sha256\tabc\n"
                     "arch\tsm_90\n"
                     "kernel\tk1\tvariants\tslice,ptb\tm1.fatbin\n"
                     "kernel\tk2\trefused\tcluster\treads %cluster_ctaid\n"
                     "\n";
  Index I;
  ASSERT_FALSE(parseIndex(Text, I));
  EXPECT_EQ(I.Kernels.size(), 2u);
}

TEST(SideModuleIndex, RejectsMalformedLines) {
  struct Case {
    const char *Text;
    const char *Message;
  } Cases[] = {
      {"", "empty index"},
      {"kernel\tk\n", "line 1: not a side-module index"},
      {"baton-side-module\t2\n", "line 1: index format 2, expected 1"},
      {"baton-side-module\t1\nsize\tlots\n", "line 2: bad size 'lots'"},
      {"baton-side-module\t1\nmystery\tx\n", "line 2: unknown record 'mystery'"},
      {"baton-side-module\t1\nkernel\tk\tvariants\tall\tm.fatbin\n",
       "line 2: unknown variant list 'all'"},
      {"baton-side-module\t1\nkernel\tk\tvariants\tslice\t../m.fatbin\n",
       "line 2: the image must be a file name"},
      {"baton-side-module\t1\nkernel\tk\trefused\tgrid-sync\n",
       "line 2: a 'refused' record has 4 fields"},
      {"baton-side-module\t1\nkernel\tk\tlost\n",
       "line 2: unknown kernel status 'lost'"},
  };
  for (const Case &C : Cases) {
    Index I;
    std::optional<std::string> Err = parseIndex(C.Text, I);
    ASSERT_TRUE(Err) << C.Text;
    EXPECT_EQ(Err->rfind(C.Message, 0), 0u) << *Err;
  }
}

TEST(SideModuleCache, RootFromEnvironment) {
  // Saved and restored: later tests in this process read them.
  std::map<std::string, std::optional<std::string>> Saved;
  for (const char *Var : {"BATON_CACHE_DIR", "XDG_CACHE_HOME", "HOME"})
    if (const char *V = std::getenv(Var))
      Saved[Var] = V;
    else
      Saved[Var] = std::nullopt;
  ::setenv("BATON_CACHE_DIR", "/somewhere/cache", 1);
  ::setenv("XDG_CACHE_HOME", "/xdg", 1);
  ::setenv("HOME", "/home/u", 1);
  EXPECT_EQ(defaultCacheRoot(), fs::path("/somewhere/cache"));
  ::unsetenv("BATON_CACHE_DIR");
  EXPECT_EQ(defaultCacheRoot(), fs::path("/xdg/baton"));
  ::unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(defaultCacheRoot(), fs::path("/home/u/.cache/baton"));
  ::unsetenv("HOME");
  EXPECT_EQ(defaultCacheRoot(), std::nullopt);
  for (const auto &[Var, Value] : Saved)
    if (Value)
      ::setenv(Var.c_str(), Value->c_str(), 1);
}

// The stamp spares rereading an unchanged file; a rewritten file (new size
// or modification time) is hashed again.
TEST(SideModuleCache, ContentHashUsesStampsWhileTheFileIsUnchanged) {
  fs::path Dir = scratch("stamps");
  fs::path Lib = Dir / "libk.so";
  std::ofstream(Lib) << "first";
  std::string Error;
  EXPECT_EQ(contentHash(Dir / "cache", Lib, Error), sha256Hex({
      reinterpret_cast<const uint8_t *>("first"), 5}));
  ASSERT_TRUE(fs::exists(Dir / "cache" / "stamps"));
  ASSERT_EQ(std::distance(fs::directory_iterator(Dir / "cache" / "stamps"),
                          fs::directory_iterator()),
            1);

  // A forged stamp is believed while size and time match: proof that the
  // file was not read again.
  fs::path Stamp = fs::directory_iterator(Dir / "cache" / "stamps")->path();
  std::string Line;
  std::getline(std::ifstream(Stamp), Line);
  std::string Forged = Line.substr(0, Line.rfind(' ') + 1) + std::string(64, 'f');
  std::ofstream(Stamp) << Forged << "\n";
  EXPECT_EQ(contentHash(Dir / "cache", Lib, Error), std::string(64, 'f'));

  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::ofstream(Lib) << "second!";
  EXPECT_EQ(contentHash(Dir / "cache", Lib, Error), sha256Hex({
      reinterpret_cast<const uint8_t *>("second!"), 7}));

  EXPECT_FALSE(contentHash(Dir / "cache", Dir / "missing.so", Error));
  EXPECT_NE(Error.find("cannot stat"), std::string::npos) << Error;
  fs::remove_all(Dir);
}

TEST(SideModuleCache, ReadIndexReportsWhatIsWrong) {
  fs::path Dir = scratch("read");
  std::string Error;
  EXPECT_FALSE(readIndex(Dir, Error));
  EXPECT_NE(Error.find("no side-module index"), std::string::npos) << Error;
  std::ofstream(Dir / IndexFileName) << "baton-side-module\t1\nbogus\n";
  EXPECT_FALSE(readIndex(Dir, Error));
  EXPECT_NE(Error.find("index.txt: line 2:"), std::string::npos) << Error;
  std::ofstream(Dir / IndexFileName) << writeIndex(sample());
  std::optional<Index> I = readIndex(Dir, Error);
  ASSERT_TRUE(I);
  EXPECT_EQ(I->Kernels.size(), 4u);
  fs::remove_all(Dir);
}

TEST(SideModuleIndex, RecordsTheTaskAbiItsVariantsUse) {
  EXPECT_EQ(taskAbiVersion(batonVersion()), unsigned(BATON_TASK_ABI_VERSION));
  EXPECT_EQ(taskAbiVersion("0.1.0+task-abi.7"), 7u);
  // Indexes from before the ABI was recorded: version 1.
  EXPECT_EQ(taskAbiVersion("0.1.0"), 1u);
  EXPECT_EQ(taskAbiVersion(""), 1u);
  EXPECT_EQ(taskAbiVersion("0.1.0+task-abi.x"), 0u);
}
