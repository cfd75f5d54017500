//===- Report.cpp - JSON report of a transform ----------------------------===//
#include "baton/Transform/Report.h"

#include <cstdio>

namespace baton {

namespace {

std::string quote(std::string_view S) {
  std::string Out = "\"";
  for (char C : S) {
    switch (C) {
    case '"': Out += "\\\""; break;
    case '\\': Out += "\\\\"; break;
    case '\n': Out += "\\n"; break;
    case '\t': Out += "\\t"; break;
    case '\r': Out += "\\r"; break;
    default:
      if (static_cast<unsigned char>(C) < 0x20) {
        char Buf[8];
        std::snprintf(Buf, sizeof Buf, "\\u%04x", C);
        Out += Buf;
      } else {
        Out += C;
      }
    }
  }
  return Out + "\"";
}

template <typename T> std::string optional(const std::optional<T> &V) {
  return V ? std::to_string(*V) : "null";
}

std::string dims(const std::optional<std::array<uint32_t, 3>> &D) {
  if (!D)
    return "null";
  std::string S = "[";
  for (size_t I = 0; I < 3; ++I)
    S.append(I ? ", " : "").append(std::to_string((*D)[I]));
  return S + "]";
}

std::string facts(const KernelFacts &F) {
  std::string S = "{";
  S += "\"reqntid\": " + dims(F.ReqNTid);
  S += ", \"maxntid\": " + dims(F.MaxNTid);
  S += ", \"minnctapersm\": " + optional(F.MinNCtaPerSm);
  S += ", \"maxnreg\": " + optional(F.MaxNReg);
  S += ", \"static_shared_bytes\": " + std::to_string(F.StaticSharedBytes);
  S += ", \"dynamic_shared\": ";
  S += F.UsesDynamicSharedMemory ? "true" : "false";
  S += ", \"local_bytes\": " + std::to_string(F.LocalBytes);
  S += ", \"registers_declared\": " + std::to_string(F.RegistersDeclared);
  S += ", \"instructions\": " + std::to_string(F.Instructions);
  S += ", \"barriers\": " + std::to_string(F.Barriers);
  S += ", \"global_memory_ops\": " + std::to_string(F.GlobalMemoryOps);
  S += ", \"shared_memory_ops\": " + std::to_string(F.SharedMemoryOps);
  S += ", \"tensor_core_ops\": " + std::to_string(F.TensorCoreOps);
  S += ", \"async_copy_ops\": " + std::to_string(F.AsyncCopyOps);
  S += ", \"calls\": " + std::to_string(F.Calls);
  return S + "}";
}

} // namespace

std::string reportToJson(const TransformResult &R, std::string_view Input) {
  std::string S = "{\n  \"input\": " + quote(Input) + ",\n  \"kernels\": [";
  for (size_t I = 0; I < R.Kernels.size(); ++I) {
    const KernelResult &K = R.Kernels[I];
    S += I ? ",\n    {" : "\n    {";
    S += "\"name\": " + quote(K.Name);
    S += ", \"line\": " + std::to_string(K.Line);
    S += ", \"selected\": ";
    S += K.Selected ? "true" : "false";
    S += ", \"variants\": {\"slice\": ";
    S += K.SliceMade ? quote(K.Name + std::string(SliceSuffix)) : "null";
    S += ", \"ptb\": ";
    S += K.PtbMade ? quote(K.Name + std::string(PtbSuffix)) : "null";
    S += "}, \"registers_added\": {\"slice\": " +
         std::to_string(K.RegistersAdded[0]) +
         ", \"ptb\": " + std::to_string(K.RegistersAdded[1]) + "}";
    S += ", \"variant_maxnreg\": " + optional(K.VariantMaxNReg);
    S += ", \"virtual_callees\": [";
    for (size_t J = 0; J < K.VirtualCallees.size(); ++J)
      S += (J ? ", " : "") + quote(K.VirtualCallees[J]);
    S += "], \"refusals\": [";
    for (size_t J = 0; J < K.Refusals.size(); ++J) {
      const Refusal &F = K.Refusals[J];
      S += J ? ", {" : "{";
      S += "\"kind\": " + quote(refusalKindName(F.Kind));
      S += ", \"variants\": ";
      S += refusalIsPtbOnly(F.Kind) ? "[\"ptb\"]" : "[\"slice\", \"ptb\"]";
      S += ", \"function\": " + quote(F.Function);
      S += ", \"line\": " + std::to_string(F.Line);
      S += ", \"column\": " + std::to_string(F.Column);
      S += ", \"construct\": " + quote(F.Construct);
      S += ", \"message\": " + quote(F.Message) + "}";
    }
    S += "], \"facts\": " + facts(K.Facts) + "}";
  }
  S += R.Kernels.empty() ? "]\n}\n" : "\n  ]\n}\n";
  return S;
}

} // namespace baton
