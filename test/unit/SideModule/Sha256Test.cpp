//===- Sha256Test.cpp - The content hash of side modules ------------------===//
#include "baton/SideModule/Sha256.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string_view>

using namespace baton::side;

namespace {

std::string hashOf(std::string_view S) {
  return sha256Hex({reinterpret_cast<const uint8_t *>(S.data()), S.size()});
}

} // namespace

// FIPS 180-4 examples (NIST CSRC "SHA256.pdf") and the million-'a' vector.
TEST(Sha256, KnownDigests) {
  EXPECT_EQ(hashOf(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(hashOf("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(hashOf("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(hashOf(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// Padding crosses a block boundary at 56 bytes; every length around it and
// every way of splitting the input must give the one-shot digest.
TEST(Sha256, PiecesGiveTheSameDigest) {
  std::string Text;
  for (int I = 0; I < 200; ++I)
    Text += char('A' + I % 26);
  for (size_t Length : {55u, 56u, 57u, 63u, 64u, 65u, 119u, 120u, 200u}) {
    std::string_view Input(Text.data(), Length);
    std::string Whole = hashOf(Input);
    for (size_t Split = 0; Split <= Length; Split += 7) {
      Sha256 H;
      auto Bytes = reinterpret_cast<const uint8_t *>(Input.data());
      H.update({Bytes, Split});
      H.update({Bytes + Split, Length - Split});
      EXPECT_EQ(toHex(H.finish()), Whole) << Length << " split at " << Split;
    }
  }
}

TEST(Sha256, FileMatchesBytes) {
  std::filesystem::path Path =
      std::filesystem::temp_directory_path() /
      ("baton-sha256-" + std::to_string(::testing::UnitTest::GetInstance()
                                            ->random_seed()));
  std::string Text(3 << 20, 'x'); // several read buffers
  Text[12345] = 'y';
  std::ofstream(Path, std::ios::binary) << Text;
  std::string Error;
  EXPECT_EQ(sha256File(Path, Error), hashOf(Text));
  std::filesystem::remove(Path);
  EXPECT_FALSE(sha256File(Path, Error));
  EXPECT_NE(Error.find("cannot open"), std::string::npos) << Error;
}
