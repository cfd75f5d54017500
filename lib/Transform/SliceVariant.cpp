//===- SliceVariant.cpp - Wrap a kernel body as one virtual block ---------===//
//
// K__baton_slice is launched with a 1-D grid of n blocks; block i runs
// virtual block v = task->begin + i, or nothing if v >= task->end. There is
// no loop, so exits and barriers keep their meaning unchanged: the cheapest
// variant, preemptible between slices.
//
//===----------------------------------------------------------------------===//
#include "Variants.h"

#include "baton/task.h"

namespace baton::detail {

using namespace ptx;

std::pair<uint32_t, uint32_t> buildSliceVariant(Module &M,
                                                const VariantRequest &R) {
  uint32_t Index = addVariantFunction(M, R, VariantKind::Slice);
  const GeneratedNames &N = R.Names;
  StatementBuilder B(M);

  std::vector<std::string> Regs32 = {N.reg("v"), N.reg("end"), N.reg("yz")};
  for (size_t I = 0; I < 3; ++I) {
    Regs32.push_back(N.CtaId[I]);
    Regs32.push_back(N.NCtaId[I]);
  }
  B.decl(".reg", {".b64"}, std::vector<std::string>{N.reg("task")});
  B.decl(".reg", {".b32"}, Regs32);
  B.decl(".reg", {".pred"}, std::vector<std::string>{N.reg("out"), N.reg("row")});

  emitLoadTask(B, N);
  auto Task = B.sym(N.reg("task"));
  auto V = B.sym(N.reg("v")), End = B.sym(N.reg("end"));
  auto Out = B.sym(N.reg("out"));
  B.inst("ld.global.u32", {V, B.address(Task, BATON_TASK_OFFSET_BEGIN)});
  B.inst("ld.global.u32", {End, B.address(Task, BATON_TASK_OFFSET_END)});
  B.inst("mov.u32", {B.sym(N.reg("yz")), B.sym("%ctaid.x")});
  B.inst("add.u32", {V, V, B.sym(N.reg("yz"))});
  B.inst("setp.ge.u32", {Out, V, End});
  B.guarded(N.reg("out"), false, "ret", {});
  emitLoadGrid(B, N, R.Use);
  emitDecode(B, N, R.Use, N.reg("v"), N.CtaId, "slice");

  rewriteBody(B, M.Functions[R.Kernel], R.CG, N, nullptr);
  auto [Begin, End2] = B.commit();
  M.Functions[Index].BodyBegin = Begin;
  M.Functions[Index].BodyEnd = End2;
  return {Index, static_cast<uint32_t>(Regs32.size() + 3)};
}

} // namespace baton::detail
