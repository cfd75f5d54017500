//===- ArgPack.cpp - An owned copy of a kernel's arguments ----------------===//

#include "ArgPack.h"

#include <cstring>

using namespace baton::detail;

ArgPack::ArgPack(std::span<const size_t> ParamSizes,
                 std::span<void *const> Args, CUdeviceptr Task) {
  constexpr size_t Align = alignof(std::max_align_t);
  auto RoundUp = [](size_t N) { return (N + Align - 1) / Align * Align; };
  size_t Bytes = RoundUp(sizeof(Task));
  for (size_t Size : ParamSizes)
    Bytes += RoundUp(Size);
  Storage.resize(Bytes / Align);

  auto *Cursor = reinterpret_cast<std::byte *>(Storage.data());
  auto Append = [&](const void *Value, size_t Size) {
    std::memcpy(Cursor, Value, Size);
    Pointers.push_back(Cursor);
    Cursor += RoundUp(Size);
  };
  for (size_t I = 0; I < ParamSizes.size(); ++I)
    Append(Args[I], ParamSizes[I]);
  Append(&Task, sizeof(Task));
}
