//===- VariantCommon.cpp - Pieces shared by the slice and PTB variants ----===//
#include "Variants.h"

#include "InstructionInfo.h"

#include "baton/task.h"

#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/Cloning.h"

using namespace llvm;

namespace baton::ir {

/// Function attributes of the kernel that no longer hold for a variant: it
/// reads the task and shared memory, synchronises through atomics and (PTB)
/// loops until the cursor runs out.
static void dropInvalidatedAttributes(Function &V) {
  V.removeFnAttr(Attribute::Memory);
  V.removeFnAttr(Attribute::NoSync);
  V.removeFnAttr(Attribute::WillReturn);
  // A variant may return without touching its pointer arguments (a slice
  // block past `end`), so their `initializes` ranges no longer hold.
  for (Argument &A : V.args())
    A.removeAttr(Attribute::Initializes);
}

/// True if every use of C is an instruction of F (through constants).
static bool onlyUsedIn(const Constant &C, const Function &F) {
  return all_of(C.users(), [&](const User *U) {
    if (auto *I = dyn_cast<Instruction>(U))
      return I->getFunction() == &F;
    auto *CE = dyn_cast<ConstantExpr>(U);
    return CE && onlyUsedIn(*CE, F);
  });
}

/// Gives the variant its own copy of each internal shared variable that
/// only the kernel uses. The code generator demotes such a variable into its
/// one user's body; shared with the variants it would stay at module scope
/// and the original's PTX would change. Shared memory does not outlive a
/// CTA, so separate copies behave the same.
static void copyKernelSharedVariables(Function &K, StringRef Suffix,
                                      ValueToValueMapTy &VMap) {
  SmallVector<GlobalVariable *, 4> Own;
  for (GlobalVariable &G : K.getParent()->globals())
    if (G.getAddressSpace() == 3 && G.hasLocalLinkage() && !G.use_empty() &&
        onlyUsedIn(G, K))
      Own.push_back(&G);
  for (GlobalVariable *GV : Own) {
    GlobalVariable &G = *GV;
    auto *Copy = new GlobalVariable(
        *K.getParent(), G.getValueType(), G.isConstant(), G.getLinkage(),
        G.hasInitializer() ? G.getInitializer() : nullptr,
        G.getName() + Suffix, nullptr, G.getThreadLocalMode(),
        G.getAddressSpace());
    Copy->copyAttributesFrom(&G);
    VMap[&G] = Copy;
  }
}

VariantShell addVariantFunction(const VariantRequest &R, VariantKind Kind) {
  Function &K = R.Kernel;
  Module &M = *K.getParent();
  LLVMContext &Ctx = M.getContext();
  // The task pointer is the one extra parameter, appended last (the ABI).
  SmallVector<Type *, 8> Params(K.getFunctionType()->params());
  Params.push_back(PointerType::get(Ctx, /*AddressSpace=*/1));
  auto *FT = FunctionType::get(K.getReturnType(), Params, false);
  std::string Name = K.getName().str() + std::string(variantSuffix(Kind));
  VariantShell S;
  S.F = Function::Create(FT, K.getLinkage(), Name, M);

  ValueToValueMapTy VMap;
  auto NewArg = S.F->arg_begin();
  for (Argument &A : K.args()) {
    NewArg->setName(A.getName());
    VMap[&A] = &*NewArg++;
  }
  copyKernelSharedVariables(K, variantSuffix(Kind), VMap);
  SmallVector<ReturnInst *, 4> Returns;
  CloneFunctionInto(S.F, &K, VMap, CloneFunctionChangeType::LocalChangesOnly,
                    Returns);
  S.F->setCallingConv(K.getCallingConv());
  dropInvalidatedAttributes(*S.F);
  S.Task = S.F->getArg(K.arg_size());
  S.Task->setName("baton.task");
  S.Task->addAttr(Attribute::NoUndef);
  S.Task->addAttr(Attribute::getWithAlignment(Ctx, Align(BATON_TASK_ALIGN)));

  S.BodyEntry = &S.F->getEntryBlock();
  S.Body = collectBodyRewrites(*S.F, R.CG);
  S.Entry = BasicBlock::Create(Ctx, "baton.entry", S.F, S.BodyEntry);
  // Static allocas stay in the entry block: the PTB body runs in a loop.
  for (Instruction &I : make_early_inc_range(*S.BodyEntry))
    if (auto *AI = dyn_cast<AllocaInst>(&I); AI && isHoistableAlloca(*AI, *S.BodyEntry))
      AI->moveBefore(*S.Entry, S.Entry->end());
  return S;
}

Value *emitLoadTaskField(IRBuilderBase &B, Value *Task, unsigned Offset,
                         const Twine &Name) {
  Value *Addr = B.CreateConstInBoundsGEP1_32(B.getInt8Ty(), Task, Offset);
  return B.CreateAlignedLoad(B.getInt32Ty(), Addr, Align(4), Name);
}

std::array<Value *, 3> emitLoadGrid(IRBuilderBase &B, Value *Grid,
                                    const BlockIndexUse &Use) {
  std::array<bool, 3> Need = Use.gridNeeded();
  static constexpr unsigned Offsets[3] = {BATON_TASK_OFFSET_GRID_X,
                                          BATON_TASK_OFFSET_GRID_Y,
                                          BATON_TASK_OFFSET_GRID_Z};
  static constexpr const char *Names[3] = {"baton.nctaid.x", "baton.nctaid.y",
                                           "baton.nctaid.z"};
  std::array<Value *, 3> Dims = {};
  for (int I = 0; I < 3; ++I)
    if (Need[I])
      Dims[I] = emitLoadTaskField(B, Grid, Offsets[I], Names[I]);
  return Dims;
}

std::array<Value *, 3> emitDecode(IRBuilderBase &B, const BlockIndexUse &Use,
                                  Value *V, const std::array<Value *, 3> &Grid,
                                  const Twine &Prefix) {
  std::array<Value *, 3> Out = {};
  if (Use.CtaId[0] && !Use.CtaId[1] && !Use.CtaId[2]) {
    // Only x: in a 1-D grid v < grid_x always, and the division is skipped
    // (a branch: a select would compute the urem anyway).
    BasicBlock *From = B.GetInsertBlock();
    LLVMContext &Ctx = From->getContext();
    BasicBlock *Rem = BasicBlock::Create(Ctx, Prefix + ".rem",
                                         From->getParent(), From->getNextNode());
    BasicBlock *Done = BasicBlock::Create(Ctx, Prefix + ".decoded",
                                          From->getParent(), Rem->getNextNode());
    B.CreateCondBr(B.CreateICmpULT(V, Grid[0], Prefix + ".row"), Done, Rem);
    B.SetInsertPoint(Rem);
    Value *Wrapped = B.CreateURem(V, Grid[0], Prefix + ".wrapped");
    B.CreateBr(Done);
    B.SetInsertPoint(Done);
    PHINode *X = B.CreatePHI(V->getType(), 2, Prefix + ".x");
    X->addIncoming(V, From);
    X->addIncoming(Wrapped, Rem);
    Out[0] = X;
    return Out;
  }
  if (Use.CtaId[0])
    Out[0] = B.CreateURem(V, Grid[0], Prefix + ".x");
  if (!Use.CtaId[1] && !Use.CtaId[2])
    return Out;
  Value *Rest = B.CreateUDiv(V, Grid[0], Prefix + ".yz"); // v / grid_x
  if (Use.CtaId[1])
    Out[1] = B.CreateURem(Rest, Grid[1], Prefix + ".y");
  if (Use.CtaId[2])
    Out[2] = B.CreateUDiv(Rest, Grid[1], Prefix + ".z");
  return Out;
}

} // namespace baton::ir
