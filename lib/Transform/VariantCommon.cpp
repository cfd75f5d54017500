//===- VariantCommon.cpp - Pieces shared by the slice and PTB variants ----===//
#include "Variants.h"

#include "baton/task.h"

namespace baton::detail {

using namespace ptx;

uint32_t addVariantFunction(Module &M, const VariantRequest &R,
                            VariantKind Kind) {
  const GeneratedNames &Names = R.Names;
  Function V = M.Functions[R.Kernel];
  V.Name = M.intern(std::string(M.text(V.Name)) +
                    std::string(variantSuffix(Kind)));
  // The task pointer is the one extra parameter, appended last (the ABI).
  Param Task;
  for (std::string_view Q : {".param", ".u64", ".ptr", ".global", ".align"})
    Task.Qualifiers.push_back(M.intern(Q));
  Task.Qualifiers.push_back(M.intern(std::to_string(BATON_TASK_ALIGN)));
  Task.Name = M.intern(Names.symbol("task_param"));
  V.Params.push_back(Task);
  V.HasParamList = true;
  if (R.MaxNReg) {
    std::erase_if(V.Directives, [&](const FunctionDirective &D) {
      return M.text(D.Name) == ".maxnreg";
    });
    V.Directives.push_back(FunctionDirective{
        M.intern(".maxnreg"), {M.intern(std::to_string(*R.MaxNReg))}});
  }
  V.BodyBegin = V.BodyEnd = 0;
  M.Functions.push_back(std::move(V));
  return static_cast<uint32_t>(M.Functions.size() - 1);
}

void emitLoadTask(StatementBuilder &B, const GeneratedNames &Names) {
  auto Task = B.sym(Names.reg("task"));
  B.inst("ld.param.u64", {Task, B.address(B.sym(Names.symbol("task_param")))});
  B.inst("cvta.to.global.u64", {Task, Task});
}

void emitLoadGrid(StatementBuilder &B, const GeneratedNames &Names,
                  const BlockIndexUse &Use) {
  std::array<bool, 3> Need = Use.gridNeeded();
  static constexpr int Offsets[3] = {BATON_TASK_OFFSET_GRID_X,
                                     BATON_TASK_OFFSET_GRID_Y,
                                     BATON_TASK_OFFSET_GRID_Z};
  auto Task = B.sym(Names.reg("task"));
  for (int I = 0; I < 3; ++I)
    if (Need[I])
      B.inst("ld.global.u32",
             {B.sym(Names.NCtaId[I]), B.address(Task, Offsets[I])});
}

void emitDecode(StatementBuilder &B, const GeneratedNames &Names,
                const BlockIndexUse &Use, const std::string &V,
                const std::array<std::string, 3> &Out, std::string_view Site) {
  auto GridX = B.sym(Names.NCtaId[0]), GridY = B.sym(Names.NCtaId[1]);
  if (Use.CtaId[0] && !Use.CtaId[1] && !Use.CtaId[2]) {
    // Only x: in a 1-D grid v < grid_x always, and the division (a score of
    // instructions on the leader's path, with every warp waiting at the
    // barrier behind it) is skipped.
    std::string Done = Names.label(std::string("decoded_") + std::string(Site));
    B.inst("mov.u32", {B.sym(Out[0]), B.sym(V)});
    B.inst("setp.lt.u32", {B.sym(Names.reg("row")), B.sym(V), GridX});
    B.guarded(Names.reg("row"), false, "bra", {B.sym(Done)});
    B.inst("rem.u32", {B.sym(Out[0]), B.sym(V), GridX});
    B.label(Done);
    return;
  }
  if (Use.CtaId[0])
    B.inst("rem.u32", {B.sym(Out[0]), B.sym(V), GridX});
  if (!Use.CtaId[1] && !Use.CtaId[2])
    return;
  auto Rest = B.sym(Names.reg("yz")); // v / grid_x
  B.inst("div.u32", {Rest, B.sym(V), GridX});
  if (Use.CtaId[1])
    B.inst("rem.u32", {B.sym(Out[1]), Rest, GridY});
  if (Use.CtaId[2])
    B.inst("div.u32", {B.sym(Out[2]), Rest, GridY});
}

} // namespace baton::detail
