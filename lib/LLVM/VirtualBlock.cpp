//===- VirtualBlock.cpp - Virtualise the block index of a function body ---===//
#include "VirtualBlock.h"

#include "InstructionInfo.h"
#include "baton/Transform/Names.h"
#include "baton/Transform/SpillingPragma.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Debug.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/Local.h"

#define DEBUG_TYPE "baton"

using namespace llvm;

namespace baton::ir {

BlockIndexUse blockIndexUse(Function &Kernel, const CallGraph &CG,
                            ArrayRef<Function *> Reachable) {
  BlockIndexUse Use;
  for (Function *F : Reachable)
    if (CG.readsBlockIndex(*F)) {
      // Clones take all six values, so the caller must have them all.
      Use.CtaId.fill(true);
      Use.NCtaId.fill(true);
      return Use;
    }
  for (Instruction &I : instructions(Kernel))
    if (auto *CB = dyn_cast<CallBase>(&I))
      if (auto R = blockIndexRegister(*CB))
        (*R < 3 ? Use.CtaId[*R] : Use.NCtaId[*R - 3]) = true;
  return Use;
}

BodyRewrites collectBodyRewrites(Function &F, const CallGraph &CG) {
  BodyRewrites Body;
  for (BasicBlock &BB : F) {
    for (Instruction &I : BB) {
      if (auto *Ret = dyn_cast<ReturnInst>(&I)) {
        Body.Returns.push_back(Ret);
        continue;
      }
      auto *Call = dyn_cast<CallInst>(&I);
      if (!Call)
        continue;
      if (blockIndexRegister(*Call)) {
        Body.BlockIndexReads.push_back(Call);
      } else if (readsDynamicSharedSize(*Call)) {
        Body.DynamicSharedSizeReads.push_back(Call);
      } else if (holdsSpillingPragma(*Call)) {
        Body.SpillingPragmas.push_back(Call);
      } else if (isExit(*Call)) {
        Body.Exits.push_back(Call);
        break; // the rest of the block is dead
      } else if (auto B = classifyBarrier(*Call)) {
        if (B->Op == BarrierUse::Sync && !B->HasCount && B->Id)
          Body.FullBarriers.push_back(Call);
      } else if (Function *Callee = calledFunction(*Call)) {
        if (!Callee->isDeclaration() && CG.readsBlockIndex(*Callee))
          Body.CallsToReaders.push_back(Call);
      }
    }
  }
  return Body;
}

std::string virtualCalleeName(const Module &M, const Function &F) {
  std::string Base = F.getName().str() + std::string(VirtualCalleeSuffix);
  if (!M.getNamedValue(Base))
    return Base;
  for (unsigned N = 0;; ++N)
    if (!M.getNamedValue(Base + std::to_string(N)))
      return Base + std::to_string(N);
}

/// Replaces Call by a call to Clone with Extra appended to its arguments.
static void redirectCall(CallInst &Call, Function &Clone,
                         ArrayRef<Value *> Extra) {
  SmallVector<Value *, 8> Args(Call.args());
  Args.append(Extra.begin(), Extra.end());
  SmallVector<OperandBundleDef, 1> Bundles;
  Call.getOperandBundlesAsDefs(Bundles);
  auto *New = CallInst::Create(Clone.getFunctionType(), &Clone, Args, Bundles,
                               "", Call.getIterator());
  New->setCallingConv(Call.getCallingConv());
  New->setTailCallKind(Call.getTailCallKind());
  New->setAttributes(Call.getAttributes());
  New->setDebugLoc(Call.getDebugLoc());
  New->takeName(&Call);
  Call.replaceAllUsesWith(New);
  Call.eraseFromParent();
}

void virtualiseBlockIndex(BodyRewrites &Body, const BlockIndexValues &Values,
                          const VirtualCallees &Callees) {
  for (CallInst *Read : Body.BlockIndexReads) {
    Value *V = Values[*blockIndexRegister(*Read)];
    assert(V && "block index read that blockIndexUse did not see");
    Read->replaceAllUsesWith(V);
    Read->eraseFromParent();
  }
  Body.BlockIndexReads.clear();
  for (CallInst *Call : Body.CallsToReaders) {
    Function *Clone = Callees.cloneOf(*calledFunction(*Call));
    assert(Clone && "reader reached without a clone");
    redirectCall(*Call, *Clone, Values);
  }
  Body.CallsToReaders.clear();
}

void rewriteExitsAndBarriers(BodyRewrites &Body,
                             const ExitAndBarrierRewrite &Rewrite) {
  BasicBlock *Next = Rewrite.ExitTarget;
  // ret and exit end the thread's virtual block, not the worker.
  for (ReturnInst *Ret : Body.Returns) {
    BranchInst::Create(Next, Ret->getIterator());
    Ret->eraseFromParent();
  }
  for (CallInst *Exit : Body.Exits) {
    BasicBlock *BB = Exit->getParent();
    changeToUnreachable(Exit);
    BB->getTerminator()->eraseFromParent();
    BranchInst::Create(Next, BB);
  }
  // Full-CTA barriers contribute false to barrier D, so the drained threads
  // (which contribute true) complete them; see PtbVariant.cpp.
  if (Rewrite.DrainBarrier) {
    for (CallInst *Barrier : Body.FullBarriers) {
      IRBuilder<> B(Barrier);
      B.CreateIntrinsic(Intrinsic::nvvm_barrier_cta_red_and_all, {},
                        {B.getInt32(*Rewrite.DrainBarrier), B.getFalse()});
      Barrier->eraseFromParent();
    }
  }
  for (CallInst *Read : Body.DynamicSharedSizeReads) {
    Read->replaceAllUsesWith(Rewrite.DynamicSharedSize);
    Read->eraseFromParent();
  }
  // The PTB variant uses dynamic shared memory, beside which ptxas rejects
  // this pragma: the asm keeps the rest of its text.
  for (CallInst *Asm : Body.SpillingPragmas) {
    auto *IA = cast<InlineAsm>(Asm->getCalledOperand());
    std::string Rest = *withoutSpillingPragma(IA->getAsmString());
    Asm->setCalledOperand(InlineAsm::get(
        IA->getFunctionType(), Rest, IA->getConstraintString(),
        IA->hasSideEffects(), IA->isAlignStack(), IA->getDialect(),
        IA->canThrow()));
  }
  Body = BodyRewrites();
}

std::vector<std::string>
VirtualCallees::cloneFor(ArrayRef<Function *> Reachable) {
  std::vector<std::string> Names;
  SmallVector<std::pair<Function *, Function *>, 4> New;
  Type *I32 = Type::getInt32Ty(M.getContext());
  for (Function *F : Reachable) {
    if (!CG.readsBlockIndex(*F) || CloneOf.contains(F))
      continue;
    SmallVector<Type *, 8> Params(F->getFunctionType()->params());
    Params.append(6, I32);
    auto *FT = FunctionType::get(F->getReturnType(), Params, F->isVarArg());
    Function *Clone = Function::Create(FT, GlobalValue::InternalLinkage,
                                       virtualCalleeName(M, *F), M);
    CloneOf[F] = Clone;
    New.push_back({F, Clone});
    Names.push_back(F->getName().str());
  }
  // All clones exist before any body is rewritten: clones call clones.
  for (auto [F, Clone] : New)
    buildClone(*F, *Clone);
  return Names;
}

void VirtualCallees::buildClone(Function &Original, Function &Clone) {
  LLVM_DEBUG(dbgs() << "baton: cloning " << Original.getName() << " as "
                    << Clone.getName() << "\n");
  ValueToValueMapTy VMap;
  auto NewArg = Clone.arg_begin();
  for (Argument &A : Original.args()) {
    NewArg->setName(A.getName());
    VMap[&A] = &*NewArg++;
  }
  static constexpr const char *Names[6] = {"baton.ctaid.x",  "baton.ctaid.y",
                                           "baton.ctaid.z",  "baton.nctaid.x",
                                           "baton.nctaid.y", "baton.nctaid.z"};
  BlockIndexValues Values;
  for (unsigned I = 0; I < 6; ++I, ++NewArg) {
    NewArg->setName(Names[I]);
    Values[I] = &*NewArg;
  }
  SmallVector<ReturnInst *, 4> Returns;
  CloneFunctionInto(&Clone, &Original, VMap,
                    CloneFunctionChangeType::LocalChangesOnly, Returns);
  Clone.setLinkage(GlobalValue::InternalLinkage);
  Clone.setVisibility(GlobalValue::DefaultVisibility);
  BodyRewrites Body = collectBodyRewrites(Clone, CG);
  virtualiseBlockIndex(Body, Values, *this);
}

} // namespace baton::ir
