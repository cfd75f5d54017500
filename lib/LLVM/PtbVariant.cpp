//===- PtbVariant.cpp - Wrap a kernel body in a persistent worker loop ----===//
//
// The IR twin of lib/Transform/PtbVariant.cpp; the protocol is the same.
// K__baton_ptb is launched with any number of workers. Each worker loops:
//
//   leader (thread 0,0,0): v = the next block of its claim, or, when the
//                          claim is used up, v = view >= end ? view :
//                          %smid < preempt ? STOP : atomicAdd(&next, size);
//                          decode v into (x, y, z);
//                          store {v, x, y, z} to a slot
//   barrier D            - publishes the slot, ends the previous block
//   all threads:           read the slot; leave if v >= end; run the body
//
// The leader keeps the last block it handed out (cur) and the end of its
// claim (lim) in shared memory after the slots, and reloads `claim_chunk`
// at each fetch, as baton-ptx does: a value live across the body costs
// every thread a register, and variants held to the original's registers
// would take them from the body. `end` alone stays in a register, for the
// loop head. The grid is copied after the claim as the worker starts; the
// fetches decode against the copy, and the body's %nctaid, loaded at the
// top of each block, read it (a load from the task at every fetch costs
// short blocks more, task.h).
// Only a used-up claim costs an atomic and a look at `preempt`, an SM
// watermark (task.h) compared with the SM's id. Every block of a claim runs,
// so `next` stays the checkpoint. Claims shrink towards the end of the grid
// (guided self-scheduling): size = min(claim_chunk, max(1, (end - cur - 1) /
// (2 * workers))). The worker count is the launch's own %nctaid.x, the one
// read of the launch's grid; cur starts one below the cursor's value when
// the worker starts. That first claim, whose view of the cursor is fresh,
// takes the worker's whole share rounded up, min(claim_chunk, max(1,
// ceil((end - cur - 1) / workers))), as baton-ptx's does (the reasons are
// there). So are the first shares the host may hand out (task.h): the
// worker starts with blocks begin + %ctaid.x, + workers, ... (share of
// them) as its claim, a claim being a first block, an end and a step; and
// a leader whose view of the cursor (as the worker started, then the end of
// its last claim) is at `end` claims no more.
// Barrier D (an intrinsic that may touch any memory) lies between every
// store of the claim and the next fetch's load, so the optimizer cannot
// carry the claim across the body in registers. (The code
// generator does read %nctaid.x and %smid once per worker, not per fetch:
// the intrinsics are pure. %smid may change if the hardware moves a
// preempted CTA to another SM; a worker then judges the watermark by the
// SM it started on, which can vacate the wrong SM, never run a block twice.)
//
// The slot is double-buffered, so one barrier per virtual block suffices:
// the leader fills slot[i+1] (which is slot[i-1]) during or right after its
// own body i; every thread read slot[i-1] before it arrived at the previous
// barrier D, which the leader has already passed. The leader claims block
// i+1 after body i, or, if the host sets BATON_TASK_PREFETCH, before body i
// so that the claim's latency hides behind the body.
//
// The slots and the claim live in the last bytes of dynamic shared memory
// (the launch adds BATON_PTB_DYNAMIC_SHARED_BYTES): a static variable would
// shift the kernel's dynamic shared memory, whose alignment TMA and wgmma
// code relies on. Reads of %dynamic_smem_size in the body are reduced by the
// same amount.
//
// Early exits. In the original kernel a thread that exits counts as arrived
// at every later full-CTA barrier (PTX ISA, exit). Here `ret` and
// llvm.nvvm.exit branch to the end of the block instead, where the thread
// waits on barrier D. If the body has full-CTA barriers, the thread must keep
// "arriving" at them: barrier D is then entered as
// llvm.nvvm.barrier.cta.red.and.all(D, true) in a loop (the drain), and every
// full-CTA barrier of the body becomes llvm.nvvm.barrier.cta.red.and.all(D,
// false). A body barrier thus completes with the drained threads' help, and
// the drain ends, for all threads at the same instance, only when every
// thread has reached the end of the block. The non-aligned forms are used
// because threads of one warp may wait at different barrier instructions.
//
// Asynchronous copies. Where the kernel copies into shared memory with
// cp.async, or out of it with bulk copies or reductions (bulk_group), every
// thread waits for its own at the end of each virtual block, before barrier
// D: the worker's next block reuses the shared memory at once, where the
// original's CTA ended (lib/Transform/PtbVariant.cpp says more).
//
//   baton.entry:   allocas; end, flags; leader; slot address
//   (a fetch:      the claim from shared memory; baton.viewed: claim used
//                  up, view at end? baton.check: %smid < `preempt`?
//                  baton.take: atomicAdd;
//                  baton.publish: decode, store to the slot and the claim)
//   baton.first:   (leader fetched into slot 0) early/late; barrier D
//   baton.loop:    {v,x,y,z} = slot[parity]; v >= end? -> baton.exit
//   baton.claim:   parity ^= 16; the body's grid; early claim into
//                  slot[parity]
//   baton.body:    -> <body>, whose exits branch to baton.next
//   baton.next:    waits for async copies; late claim into slot[parity]
//   baton.fetched: barrier D (or baton.drain) -> baton.loop
//   baton.exit:    leader counts workers_exited, and workers_preempted if
//                  v is STOP; ret
//
//===----------------------------------------------------------------------===//
#include "Variants.h"

#include "InstructionInfo.h"
#include "baton/task.h"

#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace baton::ir {

namespace {

class PtbBuilder {
public:
  PtbBuilder(const VariantRequest &R, const BarrierPlan &Plan,
             GlobalVariable &DynamicShared)
      : R(R), Plan(Plan), DynamicShared(DynamicShared) {}

  Function *build();

private:
  BasicBlock *block(const Twine &Name, BasicBlock *Before = nullptr) {
    return BasicBlock::Create(S.F->getContext(), Name, S.F,
                              Before ? Before : S.BodyEntry);
  }
  /// \p FirstClaim: the worker's first fetch, whose view of the cursor is
  /// fresh (claim sizes, above). \p FirstGrid: the grid the first fetch
  /// decodes against, loaded with the rest of the task; the later fetches
  /// read the loop state's copy.
  void emitFetch(IRBuilder<> &B, Value *Parity, Value *Cur, Value *Lim,
                 Value *Step, bool FirstClaim,
                 const std::array<Value *, 3> *FirstGrid = nullptr);
  void emitFetchIf(IRBuilder<> &B, Value *Cond, BasicBlock *Fetch,
                   BasicBlock *Join, Value *Parity);
  void emitBarrierD(IRBuilder<> &B);
  /// Waits for the thread's asynchronous copies into and out of shared
  /// memory, if the kernel makes any (as the PTX side does).
  void emitAsyncCopyWaits(IRBuilder<> &B);

  const VariantRequest &R;
  BarrierPlan Plan;
  GlobalVariable &DynamicShared;
  VariantShell S;
  Value *Slot = nullptr;
  Value *ClaimAddr = nullptr; ///< Slot + BATON_PTB_CLAIM_OFFSET
  Value *ViewAddr = nullptr;  ///< Slot + BATON_PTB_VIEW_OFFSET, then the step
  /// Slot + BATON_PTB_GRID_OFFSET: the grid's copy, in the task's layout.
  Value *GridAddr = nullptr;
  Value *End = nullptr;
};

void PtbBuilder::emitAsyncCopyWaits(IRBuilder<> &B) {
  AsyncCopyUse Use;
  std::vector<Function *> Functions = R.CG.reachableFrom(R.Kernel);
  Functions.push_back(&R.Kernel);
  for (Function *F : Functions)
    for (Instruction &I : instructions(*F))
      if (auto *CB = dyn_cast<CallBase>(&I))
        Use |= asyncCopyUse(*CB);
  if (Use.IntoShared)
    B.CreateIntrinsic(Intrinsic::nvvm_cp_async_wait_all, {});
  if (Use.OutOfShared) {
    B.CreateIntrinsic(Intrinsic::nvvm_cp_async_bulk_commit_group, {});
    B.CreateIntrinsic(Intrinsic::nvvm_cp_async_bulk_wait_group_read,
                      {B.getInt32(0)});
  }
}

// Leader only: take the next virtual block of the claim {Cur, Lim, Step},
// or make a new claim (STOP when preempted), and publish the block with its
// coordinates in slot[Parity]. What is stored to the claim in shared memory
// keeps it "the last block handed out, the end of the claim, the view, the
// step" for the next fetch; after STOP the worker leaves, and its claim is
// not read again.
void PtbBuilder::emitFetch(IRBuilder<> &B, Value *Parity, Value *Cur,
                           Value *Lim, Value *Step, bool FirstClaim,
                           const std::array<Value *, 3> *FirstGrid) {
  BasicBlock *From = B.GetInsertBlock();
  BasicBlock *After = From->getNextNode();
  Value *Following = B.CreateAdd(Cur, Step, "baton.following");
  BasicBlock *Viewed = block("baton.viewed", After);
  BasicBlock *Check = block("baton.check", After);
  BasicBlock *Take = block("baton.take", After);
  BasicBlock *Publish = block("baton.publish", After);
  B.CreateCondBr(B.CreateICmpULT(Following, Lim, "baton.held"), Publish,
                 Viewed);

  // A view of the cursor at `end` or past it means that no claim can get a
  // block: publishing the view ends the worker without an atomic or a look
  // at `preempt`.
  B.SetInsertPoint(Viewed);
  Value *View = B.CreateAlignedLoad(B.getInt32Ty(), ViewAddr, Align(4),
                                    "baton.view");
  B.CreateCondBr(B.CreateICmpUGE(View, End, "baton.exhausted"), Publish,
                 Check);

  B.SetInsertPoint(Check);
  Value *Chunk = B.CreateIntrinsic(
      Intrinsic::umax, {B.getInt32Ty()},
      {emitLoadTaskField(B, S.Task, BATON_TASK_OFFSET_CLAIM_CHUNK,
                         "baton.claim.chunk"),
       B.getInt32(1)},
      nullptr, "baton.chunk");
  Value *Workers = B.CreateIntrinsic(Intrinsic::nvvm_read_ptx_sreg_nctaid_x,
                                     {}, {}, nullptr, "baton.workers");
  Value *Left = B.CreateSub(End, View, "baton.left");
  // The first claim: (left - 1) / workers + 1, the share rounded up; later
  // ones half a share. At least one block: a claim of none would hand out a
  // block twice.
  Value *Share =
      FirstClaim
          ? B.CreateAdd(B.CreateUDiv(B.CreateSub(Left, B.getInt32(1)),
                                     Workers),
                        B.getInt32(1), "baton.share")
          : B.CreateUDiv(Left, B.CreateShl(Workers, 1), "baton.share");
  Value *Size = B.CreateIntrinsic(
      Intrinsic::umax, {B.getInt32Ty()},
      {B.CreateIntrinsic(Intrinsic::umin, {B.getInt32Ty()}, {Share, Chunk}),
       B.getInt32(1)},
      nullptr, "baton.size");
  Value *Sm = B.CreateIntrinsic(Intrinsic::nvvm_read_ptx_sreg_smid, {}, {},
                                nullptr, "baton.sm");
  Value *Flag = emitLoadTaskField(B, S.Task, BATON_TASK_OFFSET_PREEMPT,
                                  "baton.preempt.flag");
  cast<LoadInst>(Flag)->setVolatile(true);
  B.CreateCondBr(B.CreateICmpULT(Sm, Flag, "baton.flagged"), Publish, Take);

  B.SetInsertPoint(Take);
  Value *Next =
      B.CreateConstInBoundsGEP1_32(B.getInt8Ty(), S.Task, BATON_TASK_OFFSET_NEXT);
  Value *Taken = B.CreateAtomicRMW(AtomicRMWInst::Add, Next, Size, Align(4),
                                   AtomicOrdering::Monotonic);
  // The claim's end is also the leader's new view of the cursor, and its
  // blocks are consecutive (step 1).
  Value *Limit = B.CreateAdd(Taken, Size, "baton.limit");
  B.CreateAlignedStore(
      Limit, B.CreateConstInBoundsGEP1_32(B.getInt8Ty(), ClaimAddr, 4),
      Align(4));
  Value *ViewAndStep =
      PoisonValue::get(FixedVectorType::get(B.getInt32Ty(), 2));
  ViewAndStep = B.CreateInsertElement(ViewAndStep, Limit, uint64_t(0));
  ViewAndStep = B.CreateInsertElement(ViewAndStep, B.getInt32(1), uint64_t(1));
  B.CreateAlignedStore(ViewAndStep, ViewAddr, Align(8));
  B.CreateBr(Publish);

  B.SetInsertPoint(Publish);
  PHINode *NV = B.CreatePHI(B.getInt32Ty(), 4, "baton.nv");
  NV->addIncoming(Following, From);
  NV->addIncoming(View, Viewed);
  NV->addIncoming(B.getInt32(BATON_PTB_STOP), Check);
  NV->addIncoming(Taken, Take);
  B.CreateAlignedStore(NV, ClaimAddr, Align(8));
  // The decode reads grid_x (and grid_y); the body's %nctaid are loaded
  // apart, at the top of each block.
  BlockIndexUse Decode;
  Decode.CtaId = R.Use.CtaId;
  std::array<Value *, 3> Coord =
      emitDecode(B, R.Use, NV,
                 FirstGrid ? *FirstGrid : emitLoadGrid(B, GridAddr, Decode),
                 "baton.n");
  Value *Vec = PoisonValue::get(FixedVectorType::get(B.getInt32Ty(), 4));
  Vec = B.CreateInsertElement(Vec, NV, uint64_t(0));
  for (unsigned I = 0; I < 3; ++I)
    Vec = B.CreateInsertElement(Vec, Coord[I] ? Coord[I] : NV, uint64_t(I + 1));
  Value *Addr = B.CreateGEP(B.getInt8Ty(), Slot, Parity, "baton.addr");
  B.CreateAlignedStore(Vec, Addr, Align(16));
}

// From the end of the current block: if Cond, load the claim and fetch the
// next virtual block in Fetch (emitFetch); then go on in Join.
void PtbBuilder::emitFetchIf(IRBuilder<> &B, Value *Cond, BasicBlock *Fetch,
                             BasicBlock *Join, Value *Parity) {
  B.CreateCondBr(Cond, Fetch, Join);
  B.SetInsertPoint(Fetch);
  Value *Held = B.CreateAlignedLoad(FixedVectorType::get(B.getInt32Ty(), 4),
                                    ClaimAddr, Align(16), "baton.claim.held");
  emitFetch(B, Parity, B.CreateExtractElement(Held, uint64_t(0), "baton.cur"),
            B.CreateExtractElement(Held, uint64_t(1), "baton.lim"),
            B.CreateExtractElement(Held, uint64_t(3), "baton.step"),
            /*FirstClaim=*/false);
  B.CreateBr(Join);
  B.SetInsertPoint(Join);
}

void PtbBuilder::emitBarrierD(IRBuilder<> &B) {
  if (!Plan.Drain) {
    B.CreateIntrinsic(Intrinsic::nvvm_barrier_cta_sync_all, {},
                      {B.getInt32(Plan.Id)});
    return;
  }
  BasicBlock *After = B.GetInsertBlock()->getNextNode();
  BasicBlock *Drain = block("baton.drain", After);
  B.CreateBr(Drain);
  B.SetInsertPoint(Drain);
  Value *All = B.CreateIntrinsic(Intrinsic::nvvm_barrier_cta_red_and_all, {},
                                 {B.getInt32(Plan.Id), B.getTrue()},
                                 nullptr, "baton.all");
  BasicBlock *Done = block("baton.drained", After);
  B.CreateCondBr(All, Done, Drain);
  B.SetInsertPoint(Done);
}

Function *PtbBuilder::build() {
  S = addVariantFunction(R, VariantKind::Ptb);
  IRBuilder<> B(S.Entry);
  // end is the one task field every thread keeps: the loop head compares v
  // with it.
  End = emitLoadTaskField(B, S.Task, BATON_TASK_OFFSET_END, "baton.end");
  Value *Flags = emitLoadTaskField(B, S.Task, BATON_TASK_OFFSET_FLAGS,
                                   "baton.flags");
  // The leader is thread (0, 0, 0); it claims blocks early or late (below).
  Value *T = B.CreateOr(
      B.CreateOr(B.CreateIntrinsic(Intrinsic::nvvm_read_ptx_sreg_tid_x, {}),
                 B.CreateIntrinsic(Intrinsic::nvvm_read_ptx_sreg_tid_y, {})),
      B.CreateIntrinsic(Intrinsic::nvvm_read_ptx_sreg_tid_z, {}));
  Value *Leader = B.CreateICmpEQ(T, B.getInt32(0), "baton.leader");
  // Slots, claim and grid: the 64 bytes below the end of dynamic shared
  // memory, 16-aligned.
  Value *DSmem = B.CreateIntrinsic(
      Intrinsic::nvvm_read_ptx_sreg_dynamic_smem_size, {}, {}, nullptr,
      "baton.dsmem");
  // The array is 16-aligned, so rounding the offset down rounds the
  // address; an offset keeps the code free of the pointer's width, which
  // the module's data layout and llc's (-nvptx-short-ptr) may disagree on.
  Value *Offset = B.CreateAnd(
      B.CreateSub(DSmem, B.getInt32(BATON_PTB_STATE_BYTES)), B.getInt32(-16));
  Slot = B.CreateGEP(B.getInt8Ty(), &DynamicShared, Offset, "baton.slot");
  ClaimAddr = B.CreateConstInBoundsGEP1_32(
      B.getInt8Ty(), Slot, BATON_PTB_CLAIM_OFFSET, "baton.claim.addr");
  ViewAddr = B.CreateConstInBoundsGEP1_32(
      B.getInt8Ty(), Slot, BATON_PTB_VIEW_OFFSET, "baton.view.addr");
  GridAddr = B.CreateConstInBoundsGEP1_32(
      B.getInt8Ty(), Slot, BATON_PTB_GRID_OFFSET, "baton.grid.addr");
  Value *BodyDSmem = B.CreateSub(
      DSmem, B.getInt32(BATON_PTB_DYNAMIC_SHARED_BYTES), "baton.body.dsmem");
  BasicBlock *Fetch0 = block("baton.fetch.first");
  BasicBlock *First = block("baton.first");
  B.CreateCondBr(Leader, Fetch0, First);
  B.SetInsertPoint(Fetch0);
  // The worker's view of the cursor is the cursor as it starts. Its first
  // claim is its first share: blocks begin + worker, then a stride of
  // workers, below begin + workers * share (and end). It is empty when the
  // host gave none (share 0): then the first fetch goes to the cursor.
  Value *Cursor = emitLoadTaskField(B, S.Task, BATON_TASK_OFFSET_NEXT,
                                    "baton.cursor");
  Value *FirstShare = emitLoadTaskField(
      B, S.Task, BATON_TASK_OFFSET_FIRST_SHARE, "baton.first.share");
  Value *Begin =
      emitLoadTaskField(B, S.Task, BATON_TASK_OFFSET_BEGIN, "baton.begin");
  // The grid, for the first fetch and, copied to the loop's state, for the
  // later ones and the body's %nctaid.
  std::array<Value *, 3> Grid = emitLoadGrid(B, S.Task, R.Use);
  for (unsigned I = 0; I < 3; ++I)
    if (Grid[I])
      B.CreateAlignedStore(
          Grid[I],
          B.CreateConstInBoundsGEP1_32(B.getInt8Ty(), GridAddr, 4 * I),
          Align(4));
  Value *Worker = B.CreateIntrinsic(Intrinsic::nvvm_read_ptx_sreg_ctaid_x, {},
                                    {}, nullptr, "baton.worker");
  Value *Workers = B.CreateIntrinsic(Intrinsic::nvvm_read_ptx_sreg_nctaid_x,
                                     {}, {}, nullptr, "baton.workers");
  Value *SharesEnd = B.CreateIntrinsic(
      Intrinsic::umin, {B.getInt32Ty()},
      {B.CreateAdd(B.CreateMul(Workers, FirstShare), Begin), End}, nullptr,
      "baton.shares.end");
  // One stride before the worker's first block (it may wrap; the fetch's
  // add wraps back).
  Value *Before = B.CreateSub(B.CreateAdd(Begin, Worker), Workers,
                              "baton.before");
  // The share is the claim the later fetches read, with the view: all of
  // it is stored here, since the fetch that hands out its first block
  // stores only that block.
  Value *Share = PoisonValue::get(FixedVectorType::get(B.getInt32Ty(), 4));
  for (auto [I, V] : llvm::enumerate(
           std::array<Value *, 4>{Before, SharesEnd, Cursor, Workers}))
    Share = B.CreateInsertElement(Share, V, uint64_t(I));
  B.CreateAlignedStore(Share, ClaimAddr, Align(16));
  emitFetch(B, B.getInt32(0), Before, SharesEnd, Workers,
            /*FirstClaim=*/true, &Grid);
  B.CreateBr(First);
  B.SetInsertPoint(First);
  // Only the loop reads `flags`: used before the leader's branch, its load
  // would be waited for before the leader loads the rest of the task, two
  // round trips to memory where one does (ptxas keeps the wait there).
  Value *Prefetch = B.CreateICmpNE(
      B.CreateAnd(Flags, B.getInt32(BATON_TASK_PREFETCH)), B.getInt32(0));
  Value *Early = B.CreateAnd(Leader, Prefetch, "baton.early");
  Value *Late = B.CreateAnd(Leader, B.CreateNot(Prefetch), "baton.late");
  B.CreateIntrinsic(Intrinsic::nvvm_barrier_cta_sync_all, {},
                    {B.getInt32(Plan.Id)});
  BasicBlock *Loop = block("baton.loop");
  B.CreateBr(Loop);

  B.SetInsertPoint(Loop);
  PHINode *Parity = B.CreatePHI(B.getInt32Ty(), 2, "baton.parity");
  Parity->addIncoming(B.getInt32(0), First);
  Value *Loaded = B.CreateAlignedLoad(
      FixedVectorType::get(B.getInt32Ty(), 4),
      B.CreateGEP(B.getInt8Ty(), Slot, Parity), Align(16), "baton.slot.v");
  Value *V = B.CreateExtractElement(Loaded, uint64_t(0), "baton.v");
  std::array<Value *, 3> Coord = {};
  for (unsigned I = 0; I < 3; ++I)
    if (R.Use.CtaId[I])
      Coord[I] = B.CreateExtractElement(Loaded, uint64_t(I + 1),
                                        "baton.ctaid." + Twine("xyz"[I]));
  BasicBlock *Exit = block("baton.exit", nullptr);
  Exit->moveAfter(&S.F->back());
  BasicBlock *Claim = block("baton.claim");
  B.CreateCondBr(B.CreateICmpUGE(V, End, "baton.stop"), Exit, Claim);

  B.SetInsertPoint(Claim);
  Value *NextParity = B.CreateXor(Parity, B.getInt32(16), "baton.parity.next");
  // The body's %nctaid, reloaded for each block rather than kept live.
  BlockIndexUse BodyGridUse;
  BodyGridUse.NCtaId = R.Use.NCtaId;
  std::array<Value *, 3> BodyGrid = emitLoadGrid(B, GridAddr, BodyGridUse);
  BasicBlock *EarlyFetch = block("baton.fetch.early");
  BasicBlock *Body = block("baton.body");
  emitFetchIf(B, Early, EarlyFetch, Body, NextParity);
  B.CreateBr(S.BodyEntry);

  // The end of the virtual block, after the body's blocks.
  BasicBlock *Next = block("baton.next", Exit);
  BasicBlock *LateFetch = block("baton.fetch.late", Exit);
  BasicBlock *Fetched = block("baton.fetched", Exit);
  B.SetInsertPoint(Next);
  emitAsyncCopyWaits(B);
  emitFetchIf(B, Late, LateFetch, Fetched, NextParity);
  emitBarrierD(B);
  Parity->addIncoming(NextParity, B.GetInsertBlock());
  B.CreateBr(Loop);

  B.SetInsertPoint(Exit);
  BasicBlock *Stats = block("baton.stats", nullptr);
  BasicBlock *StatsPreempted = block("baton.stats.preempted", nullptr);
  BasicBlock *Done = block("baton.done", nullptr);
  B.CreateCondBr(Leader, Stats, Done);
  B.SetInsertPoint(Stats);
  auto Count = [&](unsigned Offset) {
    B.CreateAtomicRMW(
        AtomicRMWInst::Add,
        B.CreateConstInBoundsGEP1_32(B.getInt8Ty(), S.Task, Offset),
        B.getInt32(1), Align(4), AtomicOrdering::Monotonic);
  };
  Count(BATON_TASK_OFFSET_WORKERS_EXITED);
  // A worker leaves on STOP only when its leader saw `preempt`; any other
  // v >= end came from a claim past the end.
  B.CreateCondBr(B.CreateICmpEQ(V, B.getInt32(BATON_PTB_STOP),
                                "baton.preempted"),
                 StatsPreempted, Done);
  B.SetInsertPoint(StatsPreempted);
  Count(BATON_TASK_OFFSET_WORKERS_PREEMPTED);
  B.CreateBr(Done);
  B.SetInsertPoint(Done);
  B.CreateRetVoid();
  for (BasicBlock *BB : {Stats, StatsPreempted, Done})
    BB->moveAfter(&S.F->back());

  virtualiseBlockIndex(S.Body,
                       {Coord[0], Coord[1], Coord[2], BodyGrid[0],
                        BodyGrid[1], BodyGrid[2]},
                       R.Callees);
  ExitAndBarrierRewrite Exits;
  Exits.ExitTarget = Next;
  if (Plan.Drain)
    Exits.DrainBarrier = Plan.Id;
  Exits.DynamicSharedSize = BodyDSmem;
  rewriteExitsAndBarriers(S.Body, Exits);
  return S.F;
}

} // namespace

Function *buildPtbVariant(const VariantRequest &R, const BarrierPlan &Plan,
                          GlobalVariable &DynamicShared) {
  return PtbBuilder(R, Plan, DynamicShared).build();
}

} // namespace baton::ir
