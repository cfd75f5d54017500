//===- Manifest.cpp - Launch manifests of the GPU tests and benchmarks ----===//

#include "Manifest.h"

#include <bit>
#include <charconv>
#include <climits>
#include <cstdio>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

using namespace baton;
using namespace baton::test;

namespace {

/// splitmix64: a tiny generator whose output is the same on every platform,
/// so inputs are identical for every run and every mode being compared.
struct SplitMix {
  uint64_t State;
  uint64_t next() {
    uint64_t Z = (State += 0x9E3779B97F4A7C15ull);
    Z = (Z ^ (Z >> 30)) * 0xBF58476D1CE4E5B9ull;
    Z = (Z ^ (Z >> 27)) * 0x94D049BB133111EBull;
    return Z ^ (Z >> 31);
  }
  /// Uniform in [-1, 1), on a 2^-20 grid (exact in f16/bf16/f32/f64).
  double unit() { return double(int64_t(next() >> 43) - (1 << 20)) / (1 << 20); }
};

uint16_t toHalf(float F) {
  // Values are in [-1, 1) on a 2^-20 grid: normal or subnormal halves;
  // round to nearest even via the float's mantissa.
  uint32_t X = std::bit_cast<uint32_t>(F);
  uint16_t Sign = uint16_t((X >> 16) & 0x8000);
  float A = std::fabs(F);
  if (A == 0.0f)
    return Sign;
  int Exp = 0;
  float Mant = std::frexp(A, &Exp); // A = Mant * 2^Exp, Mant in [0.5, 1)
  int HalfExp = Exp - 1 + 15;
  if (HalfExp <= 0) // subnormal: units of 2^-24
    return Sign | uint16_t(std::nearbyint(A * 16777216.0f));
  uint32_t Frac = uint32_t(std::nearbyint((Mant * 2 - 1) * 1024));
  if (Frac == 1024) {
    Frac = 0;
    ++HalfExp;
  }
  return Sign | uint16_t(HalfExp << 10) | uint16_t(Frac);
}

std::vector<uint8_t> randomBytes(const std::string &Type, uint64_t N,
                                 uint64_t Seed) {
  SplitMix Rng{Seed};
  std::vector<uint8_t> Out(N * elementSize(Type));
  auto Put = [&](uint64_t I, auto V) {
    std::memcpy(Out.data() + I * sizeof(V), &V, sizeof(V));
  };
  for (uint64_t I = 0; I < N; ++I) {
    if (Type == "f32")
      Put(I, float(Rng.unit()));
    else if (Type == "f64")
      Put(I, Rng.unit());
    else if (Type == "f16")
      Put(I, toHalf(float(Rng.unit())));
    else if (Type == "bf16")
      Put(I, uint16_t(std::bit_cast<uint32_t>(float(Rng.unit())) >> 16));
    else if (Type == "i32")
      Put(I, int32_t(Rng.next() % 2000) - 1000);
    else if (Type == "i64")
      Put(I, int64_t(Rng.next() % 2000) - 1000);
    else if (Type == "u32")
      Put(I, uint32_t(Rng.next()));
    else if (Type == "u8")
      Put(I, uint8_t(Rng.next()));
  }
  return Out;
}

std::vector<uint8_t> scalarValue(const ManifestParam &P) {
  auto Bytes = [](auto V) {
    std::vector<uint8_t> B(sizeof(V));
    std::memcpy(B.data(), &V, sizeof(V));
    return B;
  };
  auto Bad = [&](const std::string &Why) {
    return std::runtime_error("bad scalar '" + P.Text + "': " + Why);
  };
  const std::string &T = P.Type, &V = P.Value;
  size_t Used = 0;
  try {
    if (T == "i32" || T == "i64") {
      long long X = std::stoll(V, &Used, 0);
      if (T == "i32" && (X < INT32_MIN || X > INT32_MAX))
        throw Bad("out of range for i32");
      if (Used == V.size())
        return T == "i32" ? Bytes(int32_t(X)) : Bytes(int64_t(X));
    } else if (T == "u32" || T == "u64") {
      if (V.find('-') != std::string::npos)
        throw Bad("negative");
      unsigned long long X = std::stoull(V, &Used, 0);
      if (T == "u32" && X > UINT32_MAX)
        throw Bad("out of range for u32");
      if (Used == V.size())
        return T == "u32" ? Bytes(uint32_t(X)) : Bytes(uint64_t(X));
    } else if (T == "f32") {
      float X = std::stof(V, &Used);
      if (Used == V.size())
        return Bytes(X);
    } else if (T == "f64") {
      double X = std::stod(V, &Used);
      if (Used == V.size())
        return Bytes(X);
    } else {
      throw std::runtime_error("unknown scalar type '" + T + "'");
    }
  } catch (const std::invalid_argument &) {
  } catch (const std::out_of_range &) {
    throw Bad("out of range");
  }
  throw Bad("not a number");
}

/// Decimal digits only (no sign, no spaces), at most \p Max.
uint64_t parseCount(const std::string &Text, uint64_t Max, const char *What) {
  uint64_t Value = 0;
  auto [End, Error] =
      std::from_chars(Text.data(), Text.data() + Text.size(), Value);
  if (Text.empty() || Error != std::errc() ||
      End != Text.data() + Text.size() || Value > Max)
    throw std::runtime_error(std::string("expected ") + What + ", found '" +
                             Text + "'");
  return Value;
}

ManifestExtent parseExtent(const std::string &Text) {
  size_t C1 = Text.find(','), C2 = Text.find(',', C1 + 1);
  if (C1 == std::string::npos || C2 == std::string::npos ||
      Text.find(',', C2 + 1) != std::string::npos)
    throw std::runtime_error("expected X,Y,Z, found '" + Text + "'");
  auto Dim = [&](size_t From, size_t To) {
    uint64_t D = parseCount(Text.substr(From, To - From), UINT32_MAX,
                            "dimensions X,Y,Z of 1 or more");
    if (D == 0)
      throw std::runtime_error("expected dimensions X,Y,Z of 1 or more, "
                               "found '" + Text + "'");
    return uint32_t(D);
  };
  return {Dim(0, C1), Dim(C1 + 1, C2), Dim(C2 + 1, Text.size())};
}

ManifestParam parseParam(const std::string &Text) {
  ManifestParam P;
  P.Text = Text;
  size_t C1 = Text.find(':');
  if (C1 == std::string::npos)
    throw std::runtime_error("bad parameter '" + Text + "'");
  std::string Head = Text.substr(0, C1), Rest = Text.substr(C1 + 1);
  if (Head == "in" || Head == "out" || Head == "inout" || Head == "zero") {
    P.ParamKind = Head == "in"      ? ManifestParam::In
                  : Head == "out"   ? ManifestParam::Out
                  : Head == "inout" ? ManifestParam::InOut
                                    : ManifestParam::Zero;
    size_t C2 = Rest.find(':');
    if (C2 == std::string::npos)
      throw std::runtime_error("bad buffer parameter '" + Text +
                               "': expected KIND:TYPE:COUNT");
    P.Type = Rest.substr(0, C2);
    elementSize(P.Type); // validates the type
    P.Count = parseCount(Rest.substr(C2 + 1), UINT64_MAX / 8,
                         "an element count");
    return P;
  }
  P.ParamKind = ManifestParam::Scalar;
  P.Type = Head;
  P.Value = Rest;
  scalarValue(P); // validates type and literal
  return P;
}

} // namespace

size_t baton::test::elementSize(const std::string &Type) {
  if (Type == "u8")
    return 1;
  if (Type == "f16" || Type == "bf16")
    return 2;
  if (Type == "f32" || Type == "i32" || Type == "u32")
    return 4;
  if (Type == "f64" || Type == "i64" || Type == "u64")
    return 8;
  throw std::runtime_error("unknown element type '" + Type + "'");
}

std::vector<ManifestLine>
baton::test::readManifest(const std::filesystem::path &Path) {
  std::ifstream In(Path);
  if (!In)
    throw std::runtime_error("cannot open manifest " + Path.string());
  std::vector<ManifestLine> Lines;
  std::string Text;
  for (unsigned Number = 1; std::getline(In, Text); ++Number) {
    std::istringstream Words(Text);
    std::vector<std::string> W;
    for (std::string Word; Words >> Word;)
      W.push_back(Word);
    if (W.empty() || W[0][0] == '#')
      continue;
    try {
      if (W.size() < 5)
        throw std::runtime_error("expected MODULE KERNEL GRID BLOCK SMEM ...");
      ManifestLine L;
      L.Module = W[0];
      L.Kernel = W[1];
      L.Grid = parseExtent(W[2]);
      L.Block = parseExtent(W[3]);
      if (uint64_t(L.Grid.x) * L.Grid.y * L.Grid.z > UINT32_MAX)
        throw std::runtime_error("grid '" + W[2] + "' has 2^32 blocks or more");
      L.SharedMemBytes = uint32_t(
          parseCount(W[4], UINT32_MAX, "dynamic shared memory in bytes"));
      for (size_t I = 5; I < W.size(); ++I)
        L.Params.push_back(parseParam(W[I]));
      L.LineNumber = Number;
      L.Where = Path.string() + ":" + std::to_string(Number);
      Lines.push_back(std::move(L));
    } catch (const std::exception &E) {
      throw std::runtime_error(Path.string() + ":" + std::to_string(Number) +
                               ": " + E.what());
    }
  }
  return Lines;
}

std::vector<uint8_t> baton::test::scalarBytes(const ManifestParam &Param) {
  return scalarValue(Param);
}

std::vector<uint8_t> baton::test::initialContents(const ManifestParam &Param,
                                                  size_t Index) {
  size_t Bytes = Param.Count * elementSize(Param.Type);
  switch (Param.ParamKind) {
  case ManifestParam::Out:
    return std::vector<uint8_t>(Bytes, 0xAB);
  case ManifestParam::Zero:
    return std::vector<uint8_t>(Bytes, 0);
  case ManifestParam::In:
  case ManifestParam::InOut:
    return randomBytes(Param.Type, Param.Count, 1000 + Index);
  case ManifestParam::Scalar:
    break;
  }
  throw std::runtime_error(Param.Text + ": a scalar has no buffer");
}

std::string baton::test::compareBuffers(const std::vector<uint8_t> &Got,
                                        const std::vector<uint8_t> &Want,
                                        const ManifestParam &Param) {
  if (Got == Want)
    return {};
  size_t Size = elementSize(Param.Type);
  size_t Differing = 0, First = 0;
  for (size_t I = 0; I * Size < Want.size(); ++I)
    if (std::memcmp(&Got[I * Size], &Want[I * Size], Size) != 0 &&
        Differing++ == 0)
      First = I;
  auto Hex = [&](const std::vector<uint8_t> &B) {
    char Text[3 * 8 + 1] = {};
    for (size_t K = 0; K < Size; ++K) // little-endian: print high byte first
      std::snprintf(Text + 2 * K, 3, "%02x", B[First * Size + Size - 1 - K]);
    return std::string("0x") + Text;
  };
  return Param.Text + ": " + std::to_string(Differing) + " of " +
         std::to_string(Want.size() / Size) + " elements differ; first at [" +
         std::to_string(First) + "]: got " + Hex(Got) + ", original wrote " +
         Hex(Want);
}
