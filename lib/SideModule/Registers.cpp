//===- Registers.cpp - Register budgets from an assembly ------------------===//
#include "baton/SideModule/Registers.h"

#include "Subprocess.h"

#include "baton/Fatbin/Cubin.h"

#include <fstream>
#include <iterator>
#include <vector>

namespace fs = std::filesystem;

namespace baton::side {

namespace {

/// Adds the register count of every function of \p Ptx, assembled for
/// \p Arch into \p Cubin, to \p Out.
std::optional<std::string> assembledRegisters(const fs::path &Ptx,
                                              const std::string &Arch,
                                              const fs::path &CudaBin,
                                              const fs::path &Cubin,
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
  std::vector<fatbin::FunctionRegisters> Functions;
  if (auto Err = fatbin::cubinRegisters(Bytes, Cubin.string(), 0, Functions))
    return Err->str();
  for (fatbin::FunctionRegisters &F : Functions)
    Out[std::move(F.Name)] = F.Registers;
  return std::nullopt;
}

} // namespace

std::optional<std::string> fitRegisters(std::string_view Ptx, const Arch &As,
                                        const SmLimits &L,
                                        const fs::path &CudaBin,
                                        const fs::path &ScratchStem,
                                        RegisterBudgetFn &Out) {
  fs::path PtxPath = ScratchStem, CubinPath = ScratchStem;
  PtxPath += ".ptx";
  CubinPath += ".cubin";
  RegisterCounts Registers;
  std::optional<std::string> Err;
  {
    std::ofstream File(PtxPath, std::ios::binary);
    File << Ptx;
    if (!File)
      Err = PtxPath.string() + ": cannot write";
  }
  if (!Err)
    Err = assembledRegisters(PtxPath, As.name(), CudaBin, CubinPath, Registers);
  std::error_code EC;
  fs::remove(PtxPath, EC);
  fs::remove(CubinPath, EC);
  if (!Err)
    Out = budgetsFor(L, std::move(Registers));
  return Err;
}

} // namespace baton::side
