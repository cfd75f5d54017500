//===- Registers.cpp - Registers of assembled kernels ---------------------===//
#include "baton/SideModule/Registers.h"

#include "Subprocess.h"

#include "baton/Fatbin/Cubin.h"

#include <fstream>
#include <iterator>
#include <vector>

namespace fs = std::filesystem;

namespace baton::side {

std::optional<std::string>
assembledRegisters(const fs::path &Ptx, const std::string &Arch,
                   const fs::path &CudaBin, const fs::path &Cubin,
                   RegisterCounts &Out) {
  ProcessResult P = runProcess({(CudaBin / "ptxas").string(), "-arch=" + Arch,
                                Ptx.string(), "-o", Cubin.string()});
  if (P.ExitCode != 0) {
    std::string First = P.Output.substr(0, P.Output.find('\n'));
    return "ptxas -arch=" + Arch + " " + Ptx.string() + " failed: " + First;
  }
  std::vector<uint8_t> Bytes;
  {
    std::ifstream In(Cubin, std::ios::binary);
    Bytes.assign(std::istreambuf_iterator<char>(In),
                 std::istreambuf_iterator<char>());
  }
  std::error_code EC;
  fs::remove(Cubin, EC);
  std::vector<fatbin::FunctionRegisters> Functions;
  if (auto Err = fatbin::cubinRegisters(Bytes, Cubin.string(), 0, Functions))
    return Err->str();
  for (fatbin::FunctionRegisters &F : Functions)
    Out[std::move(F.Name)] = F.Registers;
  return std::nullopt;
}

} // namespace baton::side
