//===- FatbinHostileTest.cpp - The fatbin reader on hostile input ---------===//
//
// Fatbins come from files we did not build: every truncation, corruption and
// absurd size must end in an error value (or a valid result), never in a
// crash, an out-of-bounds read (the suite also runs under ASan+UBSan), a huge
// allocation or a hang.
//
//===----------------------------------------------------------------------===//
#include "FatbinTestUtil.h"

#include "baton/Fatbin/Cubin.h"
#include "baton/Fatbin/Decompress.h"
#include "baton/Fatbin/Elf.h"

#include <random>

using namespace baton::fatbin;
using namespace baton::fatbin::test;

namespace {

const char *const Inputs[] = {"ptx-none.fatbin", "ptx-lz4.fatbin",
                              "ptx-zstd.fatbin", "sass-zstd.fatbin",
                              "ptx-zstd.o"};

/// Runs everything a tool would run on Bytes. Returns the error of the scan,
/// if any; decode errors are fine but must name the file.
std::optional<Error> exercise(std::span<const uint8_t> Bytes) {
  std::vector<Entry> Entries;
  std::optional<Error> Err = scanFile(Bytes, "hostile", Entries);
  if (Err) {
    EXPECT_EQ(Err->File, "hostile");
    EXPECT_FALSE(Err->Message.empty());
    EXPECT_LE(Err->Offset, Bytes.size() + 0x40);
    return Err;
  }
  for (const Entry &E : Entries) {
    std::vector<uint8_t> Payload;
    if (auto DecodeErr = decodePayload(Bytes, E, "hostile", Payload)) {
      EXPECT_EQ(DecodeErr->File, "hostile");
      continue;
    }
    std::vector<std::string> Kernels;
    std::vector<FunctionRegisters> Registers;
    if (E.isELF()) {
      (void)cubinKernels(Payload, "hostile", 0, Kernels);
      (void)cubinRegisters(Payload, "hostile", 0, Registers);
    }
  }
  return std::nullopt;
}

TEST(FatbinHostile, TruncatedEverySeventhByte) {
  for (const char *Name : Inputs) {
    std::vector<uint8_t> Bytes = readInput(Name);
    ASSERT_FALSE(Bytes.empty()) << Name;
    ASSERT_FALSE(exercise(Bytes)) << Name;
    bool RawFatbin = !isElf(Bytes);
    for (size_t Size = 0; Size < Bytes.size(); Size += 7) {
      std::optional<Error> Err =
          exercise(std::span<const uint8_t>(Bytes).first(Size));
      // A raw fatbin is one container that fills the file, and ELF section
      // headers sit at the end: every cut must be noticed.
      EXPECT_TRUE(Err) << Name << " cut at " << Size;
      if (RawFatbin && Err && Size >= 16) {
        EXPECT_LE(Err->Offset, Size) << Name;
      }
    }
  }
}

TEST(FatbinHostile, EveryByteCorrupted) {
  for (const char *Name : Inputs) {
    std::vector<uint8_t> Bytes = readInput(Name);
    for (size_t I = 0; I < Bytes.size(); ++I) {
      std::vector<uint8_t> Copy = Bytes;
      Copy[I] ^= 0xff;
      (void)exercise(Copy);
    }
  }
}

TEST(FatbinHostile, RandomBytes) {
  std::mt19937 Rng(7);
  std::vector<uint8_t> Fatbin = readInput("ptx-lz4.fatbin");
  for (int Round = 0; Round < 2000; ++Round) {
    std::vector<uint8_t> Bytes(Rng() % 512);
    for (uint8_t &B : Bytes)
      B = uint8_t(Rng());
    // Keep a valid prefix of a real file some of the time, so that the
    // random part reaches the entry and payload parsers.
    size_t Keep = std::min<size_t>(Bytes.size(), Rng() % 96);
    if (Round % 2)
      std::copy_n(Fatbin.begin(), std::min(Keep, Fatbin.size()), Bytes.begin());
    (void)exercise(Bytes);
  }
}

template <typename T> void put(std::vector<uint8_t> &B, size_t Off, T V) {
  for (size_t I = 0; I < sizeof(T); ++I)
    B[Off + I] = uint8_t(uint64_t(V) >> (8 * I));
}

TEST(FatbinHostile, HugeSizes) {
  const std::vector<uint8_t> Good = readInput("ptx-lz4.fatbin");
  // Offsets: the container size, then the first entry's header size and
  // payload size (the entry starts at 0x10).
  struct Case {
    size_t Offset;
    uint64_t Value;
    bool Wide;
    const char *Expected;
  } Cases[] = {
      {0x08, ~uint64_t(0), true, "runs past the end"},
      {0x08, 1 << 20, true, "runs past the end"},
      {0x14, 0, false, "below 64"},
      {0x14, 0xfffffff0, false, "below 64 or runs past"},
      {0x18, ~uint64_t(0) - 8, true, "entry payload of"},
  };
  for (const Case &C : Cases) {
    std::vector<uint8_t> Bytes = Good;
    if (C.Wide)
      put<uint64_t>(Bytes, C.Offset, C.Value);
    else
      put<uint32_t>(Bytes, C.Offset, uint32_t(C.Value));
    std::optional<Error> Err = exercise(Bytes);
    ASSERT_TRUE(Err) << C.Expected;
    EXPECT_NE(Err->Message.find(C.Expected), std::string::npos)
        << Err->str();
  }

  // A sane layout that asks for 2^62 bytes of output must not allocate them.
  std::vector<uint8_t> Bytes = Good;
  put<uint64_t>(Bytes, 0x10 + 0x38, uint64_t(1) << 62);
  std::vector<Entry> Entries;
  ASSERT_FALSE(scanFile(Bytes, "huge", Entries));
  std::vector<uint8_t> Out;
  std::optional<Error> Err = decodePayload(Bytes, Entries.at(0), "huge", Out);
  ASSERT_TRUE(Err);
  EXPECT_NE(Err->Message.find("exceeds the limit"), std::string::npos);
  EXPECT_EQ(Err->str().rfind("huge: error: offset 0x48: entry 0: ", 0), 0u)
      << Err->str();
}

TEST(FatbinHostile, ElfWithAbsurdSectionTable) {
  std::vector<uint8_t> Bytes = readInput("ptx-zstd.o");
  std::vector<uint8_t> Copy = Bytes;
  put<uint64_t>(Copy, 0x28, ~uint64_t(0) - 4); // e_shoff
  EXPECT_TRUE(exercise(Copy));
  Copy = Bytes;
  Copy[0x3c] = 0xff; // e_shnum far beyond the file
  Copy[0x3d] = 0xff;
  EXPECT_TRUE(exercise(Copy));
}

TEST(FatbinHostile, ManyEmptyContainersEndQuickly) {
  std::vector<uint8_t> Bytes;
  for (int I = 0; I < 10000; ++I) {
    const uint8_t Header[16] = {0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0};
    Bytes.insert(Bytes.end(), Header, Header + 16);
  }
  std::vector<Entry> Entries;
  EXPECT_FALSE(scanFile(Bytes, "empty", Entries));
  EXPECT_TRUE(Entries.empty());
}

} // namespace
