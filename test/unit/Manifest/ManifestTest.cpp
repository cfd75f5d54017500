//===- ManifestTest.cpp - Launch manifests of the GPU tests ---------------===//
//
// The reader the GPU tests and benchmarks share (test/manifest), without a
// GPU: what a line means, which lines it refuses and how it says so, the
// bytes a launch starts from, and the committed manifests themselves.
//
//===----------------------------------------------------------------------===//
#include "Manifest.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <set>

using namespace baton::test;
namespace fs = std::filesystem;

namespace {

/// A manifest file of \p Text, removed when the test ends.
class ManifestFile {
public:
  explicit ManifestFile(const std::string &Text) {
    const auto *Info = testing::UnitTest::GetInstance()->current_test_info();
    Path = fs::temp_directory_path() /
           (std::string("baton-manifest-") + Info->name() + ".txt");
    std::ofstream(Path) << Text;
  }
  ~ManifestFile() { fs::remove(Path); }
  fs::path Path;
};

/// The message readManifest throws for a manifest of \p Text ("" if none).
std::string errorOf(const std::string &Text) {
  ManifestFile F(Text);
  try {
    readManifest(F.Path);
  } catch (const std::runtime_error &E) {
    return E.what();
  }
  return "";
}

template <typename T> T as(const std::vector<uint8_t> &Bytes, size_t I = 0) {
  T V;
  std::memcpy(&V, Bytes.data() + I * sizeof(T), sizeof(T));
  return V;
}

TEST(ManifestTest, ReadsEveryKindOfParameter) {
  ManifestFile F("# a comment\n"
                 "\n"
                 "nvcc/a.ptx k1 70,3,2 128,1,1 1024 in:f32:100 out:bf16:7 "
                 "inout:i64:3 zero:u32:5 i32:-5 u32:0x10 u64:7 i64:-9 "
                 "f32:1.5 f64:0.25\n"
                 "   # indented comment\n"
                 "triton/b.ptx k2 1,1,1 32,4,1 0\n");
  std::vector<ManifestLine> Lines = readManifest(F.Path);
  ASSERT_EQ(Lines.size(), 2u);
  const ManifestLine &L = Lines[0];
  EXPECT_EQ(L.Module, "nvcc/a.ptx");
  EXPECT_EQ(L.Kernel, "k1");
  EXPECT_EQ(L.Grid.x, 70u);
  EXPECT_EQ(L.Grid.y, 3u);
  EXPECT_EQ(L.Grid.z, 2u);
  EXPECT_EQ(L.blocks(), 420u);
  EXPECT_EQ(L.Block.x, 128u);
  EXPECT_EQ(L.SharedMemBytes, 1024u);
  EXPECT_EQ(L.LineNumber, 3u);
  EXPECT_EQ(L.Where, F.Path.string() + ":3");
  ASSERT_EQ(L.Params.size(), 10u);
  EXPECT_EQ(L.Params[0].ParamKind, ManifestParam::In);
  EXPECT_EQ(L.Params[0].Type, "f32");
  EXPECT_EQ(L.Params[0].Count, 100u);
  EXPECT_EQ(L.Params[1].ParamKind, ManifestParam::Out);
  EXPECT_EQ(L.Params[2].ParamKind, ManifestParam::InOut);
  EXPECT_EQ(L.Params[3].ParamKind, ManifestParam::Zero);
  EXPECT_EQ(L.Params[4].Text, "i32:-5");
  EXPECT_EQ(as<int32_t>(scalarBytes(L.Params[4])), -5);
  EXPECT_EQ(as<uint32_t>(scalarBytes(L.Params[5])), 16u);
  EXPECT_EQ(as<uint64_t>(scalarBytes(L.Params[6])), 7u);
  EXPECT_EQ(scalarBytes(L.Params[6]).size(), 8u);
  EXPECT_EQ(as<int64_t>(scalarBytes(L.Params[7])), -9);
  EXPECT_EQ(as<float>(scalarBytes(L.Params[8])), 1.5f);
  EXPECT_EQ(as<double>(scalarBytes(L.Params[9])), 0.25);
  EXPECT_EQ(Lines[1].LineNumber, 5u);
  EXPECT_TRUE(Lines[1].Params.empty());
  EXPECT_EQ(Lines[1].Block.y, 4u);
}

TEST(ManifestTest, RefusesBadLinesNamingFileAndLine) {
  const std::string Ok = "m.ptx k 1,1,1 32,1,1 0";
  struct Case {
    std::string Line, Says;
  } Cases[] = {
      {"m.ptx k 1,1,1 32,1,1", "expected MODULE KERNEL GRID BLOCK SMEM"},
      {"m.ptx k 1,1 32,1,1 0", "expected X,Y,Z, found '1,1'"},
      {"m.ptx k 1,1,1,1 32,1,1 0", "expected X,Y,Z"},
      {"m.ptx k 0,1,1 32,1,1 0", "of 1 or more, found '0,1,1'"},
      {"m.ptx k -1,1,1 32,1,1 0", "found '-1'"},
      {"m.ptx k 1x,1,1 32,1,1 0", "found '1x'"},
      {"m.ptx k 65536,65536,1 32,1,1 0", "2^32 blocks or more"},
      {"m.ptx k 1,1,1 32,1,1 -4", "dynamic shared memory in bytes"},
      {Ok + " in:f33:4", "unknown element type 'f33'"},
      {Ok + " in:f32", "expected KIND:TYPE:COUNT"},
      {Ok + " in:f32:-4", "expected an element count, found '-4'"},
      {Ok + " in:f32:4k", "found '4k'"},
      {Ok + " q8:3", "unknown scalar type 'q8'"},
      {Ok + " i32:12abc", "bad scalar 'i32:12abc': not a number"},
      {Ok + " i32:3000000000", "out of range for i32"},
      {Ok + " u32:-1", "bad scalar 'u32:-1': negative"},
      {Ok + " u32:0x100000000", "out of range for u32"},
      {Ok + " f32:", "not a number"},
      {Ok + " f32:1e99", "out of range"},
      {Ok + " nocolon", "bad parameter 'nocolon'"},
  };
  for (const Case &C : Cases) {
    std::string Message = errorOf("# first line\n" + Ok + "\n" + C.Line + "\n");
    EXPECT_NE(Message.find(":3: "), std::string::npos)
        << C.Line << " -> " << Message;
    EXPECT_NE(Message.find(C.Says), std::string::npos)
        << C.Line << " -> " << Message;
  }
  EXPECT_EQ(errorOf(Ok + "\n"), "");
}

TEST(ManifestTest, MissingFileIsAnError) {
  EXPECT_THROW(readManifest("/nonexistent/baton/manifest.txt"),
               std::runtime_error);
}

TEST(ManifestTest, InitialContentsArePoisonZerosOrFixedSmallValues) {
  ManifestFile F("m.ptx k 1,1,1 32,1,1 0 out:f32:9 zero:i32:5 in:f32:1000 "
                 "inout:f16:1000 in:bf16:1000 in:i32:1000 in:f64:3 in:u8:7 "
                 "i32:4\n");
  std::vector<ManifestParam> P = readManifest(F.Path)[0].Params;
  EXPECT_EQ(initialContents(P[0], 0), std::vector<uint8_t>(36, 0xAB));
  EXPECT_EQ(initialContents(P[1], 1), std::vector<uint8_t>(20, 0));
  // The same bytes on every call; another parameter index, other bytes.
  std::vector<uint8_t> F32 = initialContents(P[2], 2);
  EXPECT_EQ(F32, initialContents(P[2], 2));
  EXPECT_NE(F32, initialContents(P[2], 3));
  ASSERT_EQ(F32.size(), 4000u);
  std::set<float> Distinct;
  for (size_t I = 0; I < 1000; ++I) {
    float V = as<float>(F32, I);
    EXPECT_GE(V, -1.0f);
    EXPECT_LT(V, 1.0f);
    Distinct.insert(V);
  }
  EXPECT_GT(Distinct.size(), 900u);
  // Halves: finite (exponent field below all ones).
  std::vector<uint8_t> F16 = initialContents(P[3], 3);
  std::vector<uint8_t> Bf16 = initialContents(P[4], 4);
  ASSERT_EQ(F16.size(), 2000u);
  for (size_t I = 0; I < 1000; ++I) {
    EXPECT_NE(as<uint16_t>(F16, I) & 0x7C00, 0x7C00);
    EXPECT_NE(as<uint16_t>(Bf16, I) & 0x7F80, 0x7F80);
  }
  std::vector<uint8_t> I32 = initialContents(P[5], 5);
  for (size_t I = 0; I < 1000; ++I) {
    EXPECT_GE(as<int32_t>(I32, I), -1000);
    EXPECT_LT(as<int32_t>(I32, I), 1000);
  }
  EXPECT_EQ(initialContents(P[6], 6).size(), 24u);
  EXPECT_EQ(initialContents(P[7], 7).size(), 7u);
  EXPECT_THROW(initialContents(P[8], 8), std::runtime_error);
}

TEST(ManifestTest, CompareBuffersSaysWhereAndHow) {
  ManifestParam P;
  P.ParamKind = ManifestParam::Out;
  P.Type = "i32";
  P.Count = 4;
  P.Text = "out:i32:4";
  std::vector<uint8_t> Want(16, 0), Got(16, 0);
  EXPECT_EQ(compareBuffers(Got, Want, P), "");
  Got[8] = 0x2A;  // element 2
  Got[12] = 0x01; // element 3
  EXPECT_EQ(compareBuffers(Got, Want, P),
            "out:i32:4: 2 of 4 elements differ; first at [2]: got "
            "0x0000002a, original wrote 0x00000000");
}

// The manifests the GPU tests run: every line parses, and every line's
// module is in the corpus.
TEST(ManifestTest, CommittedManifestsParse) {
  const fs::path Corpus = BATON_CORPUS_DIR;
  for (const char *Name : {"manifest.txt", "triton-manifest.txt"}) {
    std::vector<ManifestLine> Lines = readManifest(Corpus / Name);
    EXPECT_GT(Lines.size(), 20u) << Name;
    for (const ManifestLine &L : Lines) {
      EXPECT_TRUE(fs::exists(Corpus / L.Module)) << L.Where;
      EXPECT_GT(L.blocks(), 0u) << L.Where;
    }
  }
  std::vector<ManifestLine> Own =
      readManifest(fs::path(BATON_VARIANTS_GPU_DIR) / "kernels/manifest.txt");
  EXPECT_FALSE(Own.empty());
}

} // namespace
