//===- Index.cpp - Reading and writing side-module indexes ----------------===//
#include "baton/SideModule/Index.h"

#include "baton/task.h"

#include <charconv>
#include <span>

using namespace baton::side;

namespace {

std::string field(std::string_view S) {
  std::string Out(S);
  for (char &C : Out)
    if (C == '\t' || C == '\n' || C == '\r')
      C = ' ';
  return Out;
}

std::vector<std::string_view> splitTabs(std::string_view Line) {
  std::vector<std::string_view> Fields;
  size_t Start = 0;
  for (;;) {
    size_t Tab = Line.find('\t', Start);
    Fields.push_back(Line.substr(Start, Tab - Start));
    if (Tab == std::string_view::npos)
      return Fields;
    Start = Tab + 1;
  }
}

template <class T> bool parseNumber(std::string_view S, T &Out) {
  auto [End, Err] = std::from_chars(S.data(), S.data() + S.size(), Out);
  return Err == std::errc() && End == S.data() + S.size();
}

std::string variantList(const KernelRecord &K) {
  if (K.Slice && K.Ptb)
    return "slice,ptb";
  return K.Slice ? "slice" : "ptb";
}

/// Parses the fields after "kernel"; an error message, or nothing.
std::optional<std::string> parseKernel(std::span<const std::string_view> F,
                                       KernelRecord &K) {
  if (F.size() < 2)
    return "a kernel record needs a name and a status";
  K.Name = std::string(F[0]);
  std::string_view Status = F[1];
  if (Status == "variants") {
    if (F.size() != 4 && F.size() != 6)
      return "a 'variants' record has 4 or 6 fields";
    K.Status = KernelStatus::Variants;
    if (F[2] == "slice,ptb")
      K.Slice = K.Ptb = true;
    else if (F[2] == "slice")
      K.Slice = true;
    else if (F[2] == "ptb")
      K.Ptb = true;
    else
      return "unknown variant list '" + std::string(F[2]) + "'";
    K.Image = std::string(F[3]);
    if (K.Image.empty() || K.Image.find('/') != std::string::npos)
      return "the image must be a file name in the side module's directory";
    if (F.size() == 6) {
      K.Reason = std::string(F[4]);
      K.Detail = std::string(F[5]);
    }
    return std::nullopt;
  }
  if (Status == "refused") {
    if (F.size() != 4)
      return "a 'refused' record has 4 fields";
    K.Status = KernelStatus::Refused;
    K.Reason = std::string(F[2]);
    K.Detail = std::string(F[3]);
    return std::nullopt;
  }
  if (Status == "sass-only") {
    if (F.size() != 3)
      return "a 'sass-only' record has 3 fields";
    K.Status = KernelStatus::SassOnly;
    K.Detail = std::string(F[2]);
    return std::nullopt;
  }
  return "unknown kernel status '" + std::string(Status) + "'";
}

} // namespace

#define BATON_STRINGIFY_(X) #X
#define BATON_STRINGIFY(X) BATON_STRINGIFY_(X)

const char *baton::side::batonVersion() {
  return BATON_VERSION "+task-abi." BATON_STRINGIFY(BATON_TASK_ABI_VERSION);
}

unsigned baton::side::taskAbiVersion(std::string_view BatonVersion) {
  constexpr std::string_view Tag = "+task-abi.";
  size_t At = BatonVersion.find(Tag);
  if (At == std::string_view::npos)
    return 1;
  std::string_view Digits = BatonVersion.substr(At + Tag.size());
  unsigned N = 0;
  auto [End, Err] = std::from_chars(Digits.data(), Digits.data() + Digits.size(), N);
  return Err == std::errc() ? N : 0;
}

const KernelRecord *Index::find(std::string_view Name) const {
  for (const KernelRecord &K : Kernels)
    if (K.Name == Name)
      return &K;
  return nullptr;
}

std::string baton::side::writeIndex(const Index &I) {
  std::string Out = "baton-side-module\t" +
                    std::to_string(IndexFormatVersion) + "\n";
  Out += "input\t" + field(I.Input) + "\n";
  Out += "sha256\t" + field(I.ContentHash) + "\n";
  Out += "size\t" + std::to_string(I.InputSize) + "\n";
  Out += "baton\t" + field(I.BatonVersion) + "\n";
  for (const std::string &A : I.Archs)
    Out += "arch\t" + field(A) + "\n";
  for (const KernelRecord &K : I.Kernels) {
    Out += "kernel\t" + field(K.Name) + "\t";
    switch (K.Status) {
    case KernelStatus::Variants:
      Out += "variants\t" + variantList(K) + "\t" + field(K.Image);
      if (!K.Reason.empty())
        Out += "\t" + field(K.Reason) + "\t" + field(K.Detail);
      break;
    case KernelStatus::Refused:
      Out += "refused\t" + field(K.Reason) + "\t" + field(K.Detail);
      break;
    case KernelStatus::SassOnly:
      Out += "sass-only\t" + field(K.Detail);
      break;
    }
    Out += "\n";
  }
  return Out;
}

std::optional<std::string> baton::side::parseIndex(std::string_view Text,
                                                   Index &Out) {
  Out = Index();
  unsigned LineNo = 0;
  bool SawHeader = false;
  while (!Text.empty()) {
    size_t End = Text.find('\n');
    std::string_view Line = Text.substr(0, End);
    Text = End == std::string_view::npos ? "" : Text.substr(End + 1);
    ++LineNo;
    auto Fail = [&](const std::string &Why) {
      return "line " + std::to_string(LineNo) + ": " + Why;
    };
    if (Line.empty())
      continue;
    std::vector<std::string_view> F = splitTabs(Line);
    if (!SawHeader) {
      unsigned Version = 0;
      if (F.size() != 2 || F[0] != "baton-side-module" ||
          !parseNumber(F[1], Version))
        return Fail("not a side-module index (no 'baton-side-module' line)");
      if (Version != IndexFormatVersion)
        return Fail("index format " + std::string(F[1]) + ", expected " +
                    std::to_string(IndexFormatVersion));
      SawHeader = true;
      continue;
    }
    std::string_view Key = F[0];
    if (Key == "kernel") {
      KernelRecord K;
      if (auto Err = parseKernel(std::span(F).subspan(1), K))
        return Fail(*Err);
      Out.Kernels.push_back(std::move(K));
      continue;
    }
    if (F.size() != 2)
      return Fail("'" + std::string(Key) + "' takes one field");
    if (Key == "input")
      Out.Input = std::string(F[1]);
    else if (Key == "sha256")
      Out.ContentHash = std::string(F[1]);
    else if (Key == "size") {
      if (!parseNumber(F[1], Out.InputSize))
        return Fail("bad size '" + std::string(F[1]) + "'");
    } else if (Key == "baton")
      Out.BatonVersion = std::string(F[1]);
    else if (Key == "arch")
      Out.Archs.push_back(std::string(F[1]));
    else
      return Fail("unknown record '" + std::string(Key) + "'");
  }
  if (!SawHeader)
    return std::string("empty index");
  return std::nullopt;
}
