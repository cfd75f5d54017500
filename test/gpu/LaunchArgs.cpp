//===- LaunchArgs.cpp - A manifest line's arguments on the device ---------===//

#include "LaunchArgs.h"

using namespace baton::test;

LaunchArgs::LaunchArgs(const ManifestLine &Line, CUstream S) {
  // Reserve first: Pointers keep addresses into these vectors.
  Buffers.reserve(Line.Params.size());
  Scalars.reserve(Line.Params.size());
  for (size_t I = 0; I < Line.Params.size(); ++I) {
    const ManifestParam &P = Line.Params[I];
    if (P.ParamKind == ManifestParam::Scalar) {
      Scalars.push_back(scalarBytes(P));
      Pointers.push_back(Scalars.back().data());
      continue;
    }
    Initial.push_back(initialContents(P, I));
    Buffers.emplace_back(Initial.back().size());
    Pointers.push_back(Buffers.back().slot());
    if (P.ParamKind != ManifestParam::In) {
      OutputBuffers.push_back(Buffers.size() - 1);
      OutputParams.push_back(I);
    }
  }
  reset(S);
}

void LaunchArgs::reset(CUstream S) {
  for (size_t I = 0; I < Buffers.size(); ++I)
    Buffers[I].upload(Initial[I], S);
}

std::vector<std::vector<uint8_t>> LaunchArgs::outputs(CUstream S) const {
  std::vector<std::vector<uint8_t>> Out;
  for (size_t B : OutputBuffers)
    Out.push_back(Buffers[B].download(S));
  return Out;
}
