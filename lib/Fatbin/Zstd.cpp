//===- Zstd.cpp - zstd frames through the system libzstd ------------------===//
//
// nvcc's default compression (and --compress-mode=size/balance) stores each
// payload as one zstd frame (magic 28 b5 2f fd). zstd is a large format
// (FSE and Huffman entropy stages); we use the system library rather than a
// second decoder of our own, and build without it when it is absent.
//
//===----------------------------------------------------------------------===//
#include "baton/Fatbin/Decompress.h"

#ifdef BATON_HAVE_ZSTD
#include <zstd.h>
#endif

using namespace baton::fatbin;

bool baton::fatbin::haveZstd() {
#ifdef BATON_HAVE_ZSTD
  return true;
#else
  return false;
#endif
}

std::optional<std::string>
baton::fatbin::decodeZstd(std::span<const uint8_t> In, std::span<uint8_t> Out) {
#ifdef BATON_HAVE_ZSTD
  size_t N = ZSTD_decompress(Out.data(), Out.size(), In.data(), In.size());
  if (ZSTD_isError(N))
    return std::string("zstd: ") + ZSTD_getErrorName(N);
  if (N != Out.size())
    return "zstd frame decodes to " + std::to_string(N) + " bytes, " +
           std::to_string(Out.size()) + " declared";
  return std::nullopt;
#else
  return std::string("zstd-compressed entry, but this build has no libzstd "
                     "(install libzstd-dev and reconfigure)");
#endif
}
