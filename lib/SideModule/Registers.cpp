//===- Registers.cpp - Register budgets from an assembly ------------------===//
#include "baton/SideModule/Registers.h"

#include "Subprocess.h"

#include "baton/Fatbin/Cubin.h"

#include <algorithm>
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
                                              bool Relocatable,
                                              const fs::path &CudaBin,
                                              const fs::path &Cubin,
                                              RegisterCounts &Out) {
  std::vector<std::string> Command = {(CudaBin / "ptxas").string(),
                                      "-arch=" + Arch};
  if (Relocatable)
    Command.push_back("-c");
  Command.insert(Command.end(), {Ptx.string(), "-o", Cubin.string()});
  ProcessResult P = runProcess(Command);
  if (P.ExitCode != 0) {
    std::string First = P.Output.substr(0, P.Output.find('\n'));
    return "ptxas -arch=" + Arch + (Relocatable ? " -c " : " ") +
           Ptx.string() + " failed: " + First;
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
                                        const SmLimits &L, bool Relocatable,
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
    Err = assembledRegisters(PtxPath, As.name(), Relocatable, CudaBin,
                             CubinPath, Registers);
  std::error_code EC;
  fs::remove(PtxPath, EC);
  fs::remove(CubinPath, EC);
  if (Err)
    return Err;
  RegisterBudgetFn Budgets = budgetsFor(L, std::move(Registers));
  if (!Relocatable) {
    Out = std::move(Budgets);
    return std::nullopt;
  }
  // A relocatable cubin counts a kernel's registers without its callees',
  // which the linker adds: a kernel that calls gets no budget.
  Out = [Budgets = std::move(Budgets)](std::string_view Kernel,
                                       const KernelFacts &F) {
    return F.Calls ? std::nullopt : Budgets(Kernel, F);
  };
  return std::nullopt;
}

} // namespace baton::side
