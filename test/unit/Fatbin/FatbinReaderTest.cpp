//===- FatbinReaderTest.cpp - The fatbin reader on real nvcc output -------===//
#include "FatbinTestUtil.h"

#include "baton/Fatbin/Cubin.h"
#include "baton/Fatbin/Decompress.h"

#include <algorithm>

using namespace baton::fatbin;
using namespace baton::fatbin::test;

namespace {

std::string decodedText(const std::string &Name, Compression Expected) {
  std::vector<uint8_t> Bytes = readInput(Name);
  std::vector<Entry> Entries;
  std::optional<Error> Err = scanFile(Bytes, Name, Entries);
  EXPECT_FALSE(Err) << Err->str();
  EXPECT_EQ(Entries.size(), 1u);
  if (Entries.size() != 1)
    return "";
  const Entry &E = Entries[0];
  EXPECT_TRUE(E.isPTX());
  EXPECT_EQ(E.Arch, 90u);
  EXPECT_EQ(E.CodeMajor, 9u); // PTX ISA 9.0, what nvcc 13.0 emits.
  EXPECT_EQ(E.compression(), Expected);
  std::vector<uint8_t> Ptx;
  Err = decodePayload(Bytes, E, Name, Ptx);
  EXPECT_FALSE(Err) << Err->str();
  return std::string(Ptx.begin(), Ptx.end());
}

TEST(FatbinReader, AllCompressionsGiveTheSamePtx) {
  std::string None = decodedText("ptx-none.fatbin", Compression::None);
  std::string Lz4 = decodedText("ptx-lz4.fatbin", Compression::LZ4);
  EXPECT_NE(None.find(".visible .entry _Z6addOnePfi("), std::string::npos);
  EXPECT_EQ(None.find('\0'), std::string::npos);
  EXPECT_EQ(Lz4, None);
  EXPECT_EQ(decodedText("ptx-zstd.fatbin", Compression::Zstd), None);
}

TEST(FatbinReader, ObjectFileSection) {
  std::vector<uint8_t> Bytes = readInput("ptx-zstd.o");
  std::vector<Entry> Entries;
  ASSERT_FALSE(scanFile(Bytes, "ptx-zstd.o", Entries));
  ASSERT_EQ(Entries.size(), 1u);
  EXPECT_EQ(Entries[0].Section, ".nv_fatbin");
  EXPECT_TRUE(Entries[0].isPTX());
}

TEST(FatbinReader, SassOnlyKernels) {
  std::vector<uint8_t> Bytes = readInput("sass-zstd.fatbin");
  std::vector<Entry> Entries;
  ASSERT_FALSE(scanFile(Bytes, "sass", Entries));
  ASSERT_EQ(Entries.size(), 1u);
  EXPECT_TRUE(Entries[0].isELF());
  EXPECT_EQ(Entries[0].compression(), Compression::Zstd);
  std::vector<uint8_t> Cubin;
  std::optional<Error> Err = decodePayload(Bytes, Entries[0], "sass", Cubin);
  ASSERT_FALSE(Err) << Err->str();
  std::vector<std::string> Kernels;
  ASSERT_FALSE(cubinKernels(Cubin, "sass", 0, Kernels));
  EXPECT_EQ(Kernels, (std::vector<std::string>{"_Z5scalePffi", "_Z6addOnePfi"}));
  // And the registers ptxas gave them.
  std::vector<FunctionRegisters> Registers;
  ASSERT_FALSE(cubinRegisters(Cubin, "sass", 0, Registers));
  std::vector<std::string> Counted;
  for (const FunctionRegisters &F : Registers) {
    Counted.push_back(F.Name);
    EXPECT_GE(F.Registers, 8u) << F.Name;
    EXPECT_LE(F.Registers, 32u) << F.Name;
  }
  std::sort(Counted.begin(), Counted.end());
  EXPECT_EQ(Counted, Kernels);
}

TEST(Lz4Block, OverlappingMatch) {
  // Literal "ab", then a match of 6 at offset 2: "abababab".
  const uint8_t In[] = {0x22, 'a', 'b', 2, 0, 0x00};
  std::vector<uint8_t> Out(8);
  // The trailing empty sequence ends the block after the match.
  ASSERT_FALSE(decodeLz4Block(In, Out));
  EXPECT_EQ(std::string(Out.begin(), Out.end()), "abababab");
}

TEST(Lz4Block, RejectsBadInput) {
  std::vector<uint8_t> Out(8);
  const uint8_t ZeroOffset[] = {0x10, 'a', 0, 0};
  EXPECT_TRUE(decodeLz4Block(ZeroOffset, Out));
  const uint8_t FarOffset[] = {0x10, 'a', 9, 0};
  EXPECT_TRUE(decodeLz4Block(FarOffset, Out));
  const uint8_t LongLiterals[] = {0xf0, 255, 255, 255};
  EXPECT_TRUE(decodeLz4Block(LongLiterals, Out));
  const uint8_t ShortOutput[] = {0x30, 'a', 'b', 'c'};
  auto Err = decodeLz4Block(ShortOutput, Out);
  ASSERT_TRUE(Err);
  EXPECT_NE(Err->second.find("3 bytes, 8 declared"), std::string::npos);
}

} // namespace
