//===- SliceVariant.cpp - Wrap a kernel body as one virtual block ---------===//
//
// K__baton_slice is launched with a 1-D grid of n blocks; block i runs
// virtual block v = task->begin + i, or nothing if v >= task->end. There is
// no loop, so exits and barriers keep their meaning unchanged: the cheapest
// variant, preemptible between slices. The IR twin of
// lib/Transform/SliceVariant.cpp:
//
//   baton.entry:  allocas of the body; v = begin + ctaid.x; v >= end? ret
//   baton.decode: original grid from the task, coordinates of v
//   <body>        with the block index virtualised
//
//===----------------------------------------------------------------------===//
#include "Variants.h"

#include "baton/task.h"

#include "llvm/IR/IntrinsicsNVPTX.h"

using namespace llvm;

namespace baton::ir {

Function *buildSliceVariant(const VariantRequest &R) {
  VariantShell S = addVariantFunction(R, VariantKind::Slice);
  LLVMContext &Ctx = S.F->getContext();
  IRBuilder<> B(S.Entry);
  Value *Begin = emitLoadTaskField(B, S.Task, BATON_TASK_OFFSET_BEGIN,
                                   "baton.begin");
  Value *End = emitLoadTaskField(B, S.Task, BATON_TASK_OFFSET_END, "baton.end");
  // The only read of the launch's own block index.
  Value *Slice = B.CreateIntrinsic(Intrinsic::nvvm_read_ptx_sreg_ctaid_x, {},
                                   {}, nullptr, "baton.slice");
  Value *V = B.CreateAdd(Begin, Slice, "baton.v");
  auto *Out = BasicBlock::Create(Ctx, "baton.out", S.F, S.BodyEntry);
  auto *Decode = BasicBlock::Create(Ctx, "baton.decode", S.F, S.BodyEntry);
  B.CreateCondBr(B.CreateICmpUGE(V, End, "baton.past.end"), Out, Decode);
  ReturnInst::Create(Ctx, Out);

  B.SetInsertPoint(Decode);
  std::array<Value *, 3> Grid = emitLoadGrid(B, S.Task, R.Use);
  std::array<Value *, 3> Coord = emitDecode(B, R.Use, V, Grid, "baton.ctaid");
  B.CreateBr(S.BodyEntry);

  virtualiseBlockIndex(S.Body,
                       {Coord[0], Coord[1], Coord[2], Grid[0], Grid[1], Grid[2]},
                       R.Callees);
  return S.F;
}

} // namespace baton::ir
