//===- PtbVariant.cpp - Wrap a kernel body in a persistent worker loop ----===//
//
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
// The leader keeps the last block it handed out (cur), the end of its
// claim (lim), its view of the cursor and the claim's step in shared memory
// after the slots, and reloads the task pointer and `claim_chunk` at each
// fetch: a value kept in a register across the body costs every thread
// that register, and variants held to the original's registers (.maxnreg)
// would take them from the body. The grid, which the fetches decode against
// and the body's %nctaid read, is copied there too as the worker starts: a
// load from the task at every fetch, though an L1 hit, lies on the path
// from one block to the next and costs short blocks more (task.h). `end`
// alone stays in a register, for the loop head. Only a used-up claim costs
// an atomic and a look at `preempt`, an SM watermark (task.h), against the
// SM's id. Every block of a claim runs, so `next` stays the checkpoint.
// Claims shrink towards the end of the grid (guided self-scheduling): size =
// min(claim_chunk, max(1, (end - cur - 1) / (2 * workers))), so that no
// worker is left with a long claim while the others have run dry. The
// worker count is the launch's own %nctaid.x; cur starts one below the
// cursor's value when the worker starts. That first claim sees the cursor
// as it is (workers that start together read it before any of their first
// claims lands, as an H100 showed), and takes the worker's whole share,
// rounded up: min(claim_chunk, max(1, ceil((end - cur - 1) / workers))), so
// a grid up to claim_chunk times as deep as the workers is handed out in
// one claim each. Later claims see the cursor as it was at the worker's
// previous claim, and take half a share of that, so that a stale view does
// not give the last blocks to a few workers. Every claim is an atomic on
// one word and a look at `preempt`, and on short blocks their number, not
// their latency, is what a PTB launch pays (bench/ptb_anatomy). So the
// host may make the first claims itself (first shares, task.h): the worker
// then starts with blocks begin + %ctaid.x, + workers, ... (share of them)
// as its claim, and the cursor past every worker's share. A claim is a
// first block, an end and a step (1 for claims from the cursor): strided
// shares keep the blocks that run at once neighbours, as in the original's
// order (runs of consecutive blocks cost the probe's short kernel 0.05-0.15
// more, bench/ptb_anatomy's static-runs; the variants showed no difference,
// docs/benchmarks.md). And a leader whose view of the cursor (as the worker
// started, then the end of its last claim) is at `end` claims no more:
// where the first shares cover the grid, no worker touches `next` or
// `preempt`.
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
// code relies on. Reads of %dynamic_smem_size in the body are reduced by
// the same amount (kernels reading %total_smem_size are refused: it is
// rounded).
//
// Early exits. In the original kernel a thread that exits counts as arrived
// at every later full-CTA barrier (PTX ISA, exit). Here an exit branches to
// the end of the block instead, where the thread waits on barrier D. If the
// body has full-CTA barriers, the thread must keep "arriving" at them: then
// barrier D is entered as `barrier.red.and.pred all, D, true` in a loop (the
// drain), and every full-CTA barrier of the body becomes
// `barrier.red.and.pred _, D, false`. A body barrier thus completes with the
// drained threads' help, and the drain ends, for all threads at the same
// instance, only when every thread has reached the end of the block.
// Non-aligned forms are used because threads of one warp may wait at
// different barrier instructions. Reduction barriers cost the body's own
// barriers time on every pass, so the drain is used only where threads of
// a CTA can part before a barrier (BarrierDivergence.h); in a body whose
// every path to a barrier is taken by all threads alike (Triton's kernels:
// uniform loops, one final ret), barriers stay as they are.
//
// The branches on v and on the drain's reduction are bra.uni: all threads
// of the CTA read the same slot after barrier D and get the same reduction.
//
// Asynchronous copies. A CTA's threads may leave with copies into shared
// memory (cp.async) or out of it (bulk copies and reductions, completed by
// bulk async-group) still running; a worker's next virtual block reuses that
// shared memory at once. So where the kernel makes such copies, every thread
// waits for its own at the end of the block (cp.async.wait_all; an empty
// bulk group committed, then cp.async.bulk.wait_group.read 0) before barrier
// D. Copies completed through an mbarrier (TMA loads) are the kernel's to
// wait for, as Triton's and CUTLASS's pipelines do before they leave.
//
//===----------------------------------------------------------------------===//
#include "Variants.h"

#include "BarrierDivergence.h"
#include "InstructionInfo.h"
#include "SafetyAnalysis.h"
#include "baton/task.h"

namespace baton::detail {

using namespace ptx;

std::optional<BarrierPlan> planBarriers(const Module &M,
                                        const Function &Kernel,
                                        Refusal &Why) {
  BarrierPlanner Planner;
  const Statement *Reduction = nullptr;
  for (const Statement &S : M.body(Kernel)) {
    auto B = classifyBarrier(M, S);
    if (!B || !B->Id)
      continue;
    // A reduction barrier keeps its id: barrier D must not be one that a
    // bar.red uses too.
    Planner.note(*B->Id, B->isFullCtaSync());
    if (B->Op == BarrierUse::Reduce && !Reduction)
      Reduction = &S;
  }
  auto Plan = Planner.plan();
  if (!Plan) {
    Why = refusalAt(M, RefusalKind::NoFreeBarrier, Kernel, nullptr,
                    std::string(BarrierPlanner::NoFreeBarrierMessage));
    return std::nullopt;
  }
  std::optional<PartingPoint> Parting;
  if (Reduction)
    Parting = threadsMayPartBeforeBarrier(M, Kernel, BarrierTargets::Reductions);
  if (Parting) {
    Why = refusalAt(M, RefusalKind::BarrierReduction, Kernel, Reduction,
                    barrierReductionMessage(describeParting(M, *Parting)));
    return std::nullopt;
  }
  Plan->Drain = Plan->Drain &&
                threadsMayPartBeforeBarrier(M, Kernel,
                                            BarrierTargets::AnyCtaBarrier);
  return Plan;
}

namespace {

/// BATON_PTB_STOP as a PTX immediate: -1, the way the u32 operands print it.
constexpr int64_t Stop = int32_t(BATON_PTB_STOP);

class PtbBuilder {
public:
  PtbBuilder(Module &M, const VariantRequest &R, const BarrierPlan &Plan)
      : M(M), R(R), N(R.Names), Plan(Plan), B(M) {}

  uint32_t build(uint32_t Index);
  uint32_t registersAdded() const { return RegistersAdded; }

private:
  void declare();
  /// \p FirstClaim: the worker's first fetch, whose view of the cursor is
  /// fresh (see the file comment on claim sizes).
  void emitFetch(std::string_view Site, bool FirstClaim);
  void emitBarrierD();
  /// Waits for the thread's asynchronous copies into and out of shared
  /// memory, if the kernel makes any (see the file comment).
  void emitAsyncCopyWaits();
  /// Reloads the grid dimensions that the body reads as %nctaid.
  void emitLoadBodyGrid();
  /// Loads the grid dimensions \p Use needs from the copy in the loop's
  /// state, which the leader makes as the worker starts (task.h).
  void emitLoadStateGrid(const BlockIndexUse &Use);

  Module &M;
  const VariantRequest &R;
  const GeneratedNames &N;
  BarrierPlan Plan;
  StatementBuilder B;
  uint32_t RegistersAdded = 0;
};

void PtbBuilder::emitAsyncCopyWaits() {
  AsyncCopyUse Use;
  std::vector<uint32_t> Functions = R.CG.reachableFrom(R.Kernel);
  Functions.push_back(R.Kernel);
  for (uint32_t F : Functions)
    for (const Statement &S : M.body(M.Functions[F]))
      if (S.Kind == StatementKind::Instruction)
        Use |= asyncCopyUse(M.text(S.Text));
  if (Use.IntoShared)
    B.inst("cp.async.wait_all", {});
  if (Use.OutOfShared) {
    B.inst("cp.async.bulk.commit_group", {});
    B.inst("cp.async.bulk.wait_group.read", {B.imm(0)});
  }
}

void PtbBuilder::declare() {
  std::vector<std::string> Regs32 = {
      N.reg("v"),     N.reg("end"),   N.reg("t"),    N.reg("slot"),
      N.reg("parity"), N.reg("addr"),  N.reg("nv"),   N.reg("yz"),
      N.reg("flags"), N.reg("dsmem"), N.reg("cur"),  N.reg("lim"),
      N.reg("chunk"), N.reg("size"),  N.reg("share"), N.reg("sm"),
      N.reg("workers"), N.reg("left"), N.reg("worker"), N.reg("view"),
      N.reg("step")};
  for (size_t I = 0; I < 3; ++I) {
    Regs32.push_back(N.CtaId[I]);
    Regs32.push_back(N.NCtaId[I]);
    Regs32.push_back(N.reg(std::string("n") + "xyz"[I]));
  }
  std::vector<std::string> Preds = {
      N.reg("leader"),  N.reg("stop"),    N.reg("preempted"), N.reg("all"),
      N.reg("false"),   N.reg("ignored"), N.reg("early"),     N.reg("late"),
      N.reg("held"),    N.reg("row"),     N.reg("exhausted")};
  B.decl(".reg", {".b64"}, std::vector<std::string>{N.reg("task")});
  B.decl(".reg", {".b32"}, Regs32);
  B.decl(".reg", {".pred"}, Preds);
  RegistersAdded = static_cast<uint32_t>(1 + Regs32.size() + Preds.size());
}

// Leader only: take the next virtual block of the current claim, or make a
// new claim (STOP when preempted), and publish the block with its
// coordinates in slot[parity]. The claim ({cur, lim} after the slots), the
// task pointer, the grid and the task's fields but `end` are reloaded here
// rather than kept in registers across the body; the first fetch finds the
// grid in registers, loaded with the rest of the task. \p Site names this
// copy's labels.
void PtbBuilder::emitFetch(std::string_view Site, bool FirstClaim) {
  auto Task = B.sym(N.reg("task"));
  auto NV = B.sym(N.reg("nv")), Cur = B.sym(N.reg("cur"));
  auto Lim = B.sym(N.reg("lim")), Size = B.sym(N.reg("size"));
  auto End = B.sym(N.reg("end")), Slot = B.sym(N.reg("slot"));
  std::string Held = N.label(std::string("held_") + std::string(Site));
  // The decode reads grid_x (and grid_y); the body's %nctaid are loaded
  // apart, at the top of each block (emitLoadBodyGrid).
  BlockIndexUse Decode;
  Decode.CtaId = R.Use.CtaId;
  emitLoadTask(B, N);
  if (!FirstClaim)
    emitLoadStateGrid(Decode);
  auto View = B.sym(N.reg("view")), Step = B.sym(N.reg("step"));
  std::array<Operand, 4> Claim = {Cur, Lim, View, Step};
  B.inst("ld.shared.v4.u32",
         {B.vector(Claim), B.address(Slot, BATON_PTB_CLAIM_OFFSET)});
  B.inst("add.u32", {NV, Cur, Step});
  B.inst("setp.lt.u32", {B.sym(N.reg("held")), NV, Lim});
  B.guarded(N.reg("held"), false, "bra", {B.sym(Held)});
  // A view of the cursor at `end` or past it means that no claim can get a
  // block: nv = view ends the worker without an atomic or a look at
  // `preempt`.
  auto Left = B.sym(N.reg("left"));
  B.inst("mov.u32", {NV, View});
  B.inst("setp.ge.u32", {B.sym(N.reg("exhausted")), NV, End});
  B.guarded(N.reg("exhausted"), false, "bra", {B.sym(Held)});
  auto Chunk = B.sym(N.reg("chunk")), Workers = B.sym(N.reg("workers"));
  auto Share = B.sym(N.reg("share"));
  B.inst("ld.global.u32",
         {Chunk, B.address(Task, BATON_TASK_OFFSET_CLAIM_CHUNK)});
  B.inst("max.u32", {Chunk, Chunk, B.imm(1)});
  B.inst("mov.u32", {Workers, B.sym("%nctaid.x")});
  B.inst("sub.u32", {Left, End, NV});
  if (FirstClaim) {
    // (left - 1) / workers + 1: the share rounded up.
    B.inst("sub.u32", {Share, Left, B.imm(1)});
    B.inst("div.u32", {Share, Share, Workers});
    B.inst("add.u32", {Share, Share, B.imm(1)});
  } else {
    B.inst("shl.b32", {Share, Workers, B.imm(1)});
    B.inst("div.u32", {Share, Left, Share});
  }
  // At least one block: a claim of none would hand out a block twice.
  B.inst("min.u32", {Size, Share, Chunk});
  B.inst("max.u32", {Size, Size, B.imm(1)});
  B.inst("mov.u32", {B.sym(N.reg("sm")), B.sym("%smid")});
  B.inst("ld.volatile.global.u32",
         {NV, B.address(Task, BATON_TASK_OFFSET_PREEMPT)});
  B.inst("setp.lt.u32", {B.sym(N.reg("preempted")), B.sym(N.reg("sm")), NV});
  B.inst("mov.u32", {NV, B.imm(Stop)});
  B.guarded(N.reg("preempted"), true, "atom.global.add.u32",
            {NV, B.address(Task, BATON_TASK_OFFSET_NEXT), Size});
  // The claim's end is also the leader's new view of the cursor, and its
  // blocks are consecutive.
  B.inst("add.u32", {Lim, NV, Size});
  B.inst("mov.u32", {Step, B.imm(1)});
  B.inst("st.shared.u32",
         {B.address(Slot, BATON_PTB_CLAIM_OFFSET + 4), Lim});
  std::array<Operand, 2> ViewAndStep = {Lim, Step};
  B.inst("st.shared.v2.u32",
         {B.address(Slot, BATON_PTB_VIEW_OFFSET), B.vector(ViewAndStep)});
  B.label(Held);
  // After STOP the worker leaves, so that claim is never read.
  B.inst("st.shared.u32", {B.address(Slot, BATON_PTB_CLAIM_OFFSET), NV});
  std::array<std::string, 3> Coords = {N.reg("nx"), N.reg("ny"), N.reg("nz")};
  emitDecode(B, N, R.Use, N.reg("nv"), Coords, Site);
  std::vector<Operand> Elements = {NV};
  for (size_t I = 0; I < 3; ++I)
    Elements.push_back(R.Use.CtaId[I] ? B.sym(Coords[I]) : NV);
  auto Addr = B.sym(N.reg("addr"));
  B.inst("add.u32", {Addr, Slot, B.sym(N.reg("parity"))});
  B.inst("st.shared.v4.u32", {B.address(Addr), B.vector(Elements)});
}

void PtbBuilder::emitBarrierD() {
  if (!Plan.Drain) {
    B.inst("barrier.sync", {B.imm(Plan.Id)});
    return;
  }
  B.label(N.label("drain"));
  B.inst("barrier.red.and.pred", {B.sym(N.reg("all")), B.imm(Plan.Id),
                                  B.negated(B.sym(N.reg("false")))});
  B.guarded(N.reg("all"), true, "bra.uni", {B.sym(N.label("drain"))});
}

void PtbBuilder::emitLoadBodyGrid() {
  BlockIndexUse BodyGrid;
  BodyGrid.NCtaId = R.Use.NCtaId;
  emitLoadStateGrid(BodyGrid);
}

void PtbBuilder::emitLoadStateGrid(const BlockIndexUse &Use) {
  std::array<bool, 3> Need = Use.gridNeeded();
  for (int I = 0; I < 3; ++I)
    if (Need[I])
      B.inst("ld.shared.u32",
             {B.sym(N.NCtaId[I]),
              B.address(B.sym(N.reg("slot")), BATON_PTB_GRID_OFFSET + 4 * I)});
}

uint32_t PtbBuilder::build(uint32_t Index) {
  declare();
  emitLoadTask(B, N);
  auto Task = B.sym(N.reg("task"));
  auto T = B.sym(N.reg("t")), Addr = B.sym(N.reg("addr"));
  auto Slot = B.sym(N.reg("slot")), Parity = B.sym(N.reg("parity"));
  auto Flags = B.sym(N.reg("flags"));
  // end is the one task field every thread keeps: the loop head compares v
  // with it.
  B.inst("ld.global.u32",
         {B.sym(N.reg("end")), B.address(Task, BATON_TASK_OFFSET_END)});
  B.inst("ld.global.u32", {Flags, B.address(Task, BATON_TASK_OFFSET_FLAGS)});
  // The leader is thread (0, 0, 0); it claims blocks early or late (below).
  B.inst("mov.u32", {T, B.sym("%tid.x")});
  B.inst("mov.u32", {Addr, B.sym("%tid.y")});
  B.inst("or.b32", {T, T, Addr});
  B.inst("mov.u32", {Addr, B.sym("%tid.z")});
  B.inst("or.b32", {T, T, Addr});
  B.inst("setp.eq.u32", {B.sym(N.reg("leader")), T, B.imm(0)});
  B.inst("setp.ne.u32", {B.sym(N.reg("false")), T, T});
  // Slots, claim and grid: the 64 bytes below the end of dynamic shared
  // memory, 16-aligned.
  auto DSmem = B.sym(N.reg("dsmem"));
  B.inst("mov.u32", {DSmem, B.sym("%dynamic_smem_size")});
  B.inst("mov.u32", {Slot, B.sym(N.symbol("dynamic_smem"))});
  B.inst("add.u32", {Slot, Slot, DSmem});
  B.inst("sub.u32", {Slot, Slot, B.imm(BATON_PTB_STATE_BYTES)});
  B.inst("and.b32", {Slot, Slot, B.imm(-16)});
  B.inst("sub.u32", {DSmem, DSmem, B.imm(BATON_PTB_DYNAMIC_SHARED_BYTES)});
  B.inst("mov.u32", {Parity, B.imm(0)});
  B.guarded(N.reg("leader"), true, "bra", {B.sym(N.label("first"))});
  // The worker's view of the cursor is the cursor as it starts. Its first
  // claim is its first share: blocks begin + worker, then a stride of
  // workers, below begin + workers * share (and end). It is empty when the
  // host gave none (share 0): then the first fetch goes to the cursor.
  auto Lim = B.sym(N.reg("lim")), Cur = B.sym(N.reg("cur"));
  auto View = B.sym(N.reg("view")), Workers = B.sym(N.reg("workers"));
  auto Share = B.sym(N.reg("share")), Worker = B.sym(N.reg("worker"));
  B.inst("ld.global.u32", {View, B.address(Task, BATON_TASK_OFFSET_NEXT)});
  B.inst("ld.global.u32",
         {Share, B.address(Task, BATON_TASK_OFFSET_FIRST_SHARE)});
  B.inst("ld.global.u32", {Cur, B.address(Task, BATON_TASK_OFFSET_BEGIN)});
  // The grid, for the first fetch and, copied to the loop's state, for the
  // later ones and the body's %nctaid.
  emitLoadGrid(B, N, R.Use);
  std::array<bool, 3> Need = R.Use.gridNeeded();
  for (int I = 0; I < 3; ++I)
    if (Need[I])
      B.inst("st.shared.u32",
             {B.address(Slot, BATON_PTB_GRID_OFFSET + 4 * I),
              B.sym(N.NCtaId[I])});
  B.inst("mov.u32", {Worker, B.sym("%ctaid.x")});
  B.inst("mov.u32", {Workers, B.sym("%nctaid.x")});
  B.inst("mad.lo.u32", {Lim, Workers, Share, Cur});
  B.inst("min.u32", {Lim, Lim, B.sym(N.reg("end"))});
  // One stride before the worker's first block (it may wrap; the fetch's
  // add wraps back).
  B.inst("add.u32", {Cur, Cur, Worker});
  B.inst("sub.u32", {Cur, Cur, Workers});
  std::array<Operand, 4> Claim = {Cur, Lim, View, Workers};
  B.inst("st.shared.v4.u32",
         {B.address(Slot, BATON_PTB_CLAIM_OFFSET), B.vector(Claim)});
  emitFetch("first", /*FirstClaim=*/true);
  B.label(N.label("first"));
  // Only the loop reads `flags`: used before the leader's branch, its load
  // would be waited for before the leader loads the rest of the task, two
  // round trips to memory where one does (ptxas keeps the wait there).
  B.inst("and.b32", {Flags, Flags, B.imm(BATON_TASK_PREFETCH)});
  B.inst("setp.ne.u32", {B.sym(N.reg("early")), Flags, B.imm(0)});
  B.inst("setp.eq.u32", {B.sym(N.reg("late")), Flags, B.imm(0)});
  B.inst("and.pred", {B.sym(N.reg("early")), B.sym(N.reg("early")),
                      B.sym(N.reg("leader"))});
  B.inst("and.pred", {B.sym(N.reg("late")), B.sym(N.reg("late")),
                      B.sym(N.reg("leader"))});
  B.inst("barrier.sync", {B.imm(Plan.Id)});

  B.label(N.label("loop"));
  B.inst("add.u32", {Addr, Slot, Parity});
  std::vector<Operand> Loaded = {B.sym(N.reg("v"))};
  for (size_t I = 0; I < 3; ++I)
    Loaded.push_back(B.sym(R.Use.CtaId[I] ? N.CtaId[I] : N.reg("yz")));
  B.inst("ld.shared.v4.u32", {B.vector(Loaded), B.address(Addr)});
  B.inst("setp.ge.u32",
         {B.sym(N.reg("stop")), B.sym(N.reg("v")), B.sym(N.reg("end"))});
  B.guarded(N.reg("stop"), false, "bra.uni", {B.sym(N.label("exit"))});
  B.inst("xor.b32", {Parity, Parity, B.imm(16)});
  emitLoadBodyGrid();
  B.guarded(N.reg("early"), true, "bra", {B.sym(N.label("body"))});
  emitFetch("early", /*FirstClaim=*/false);
  B.label(N.label("body"));

  ExitAndBarrierRewrite Exits;
  Exits.ExitLabel = N.label("next");
  if (Plan.Drain)
    Exits.DrainBarrier = Plan.Id;
  Exits.FalsePredicate = N.reg("false");
  Exits.IgnoredPredicate = N.reg("ignored");
  Exits.RenamedRegisters = {{"%dynamic_smem_size", N.reg("dsmem")}};
  rewriteBody(B, M.Functions[R.Kernel], R.CG, N, &Exits);

  B.label(N.label("next"));
  emitAsyncCopyWaits();
  B.guarded(N.reg("late"), true, "bra", {B.sym(N.label("fetched"))});
  emitFetch("late", /*FirstClaim=*/false);
  B.label(N.label("fetched"));
  emitBarrierD();
  B.inst("bra", {B.sym(N.label("loop"))});

  B.label(N.label("exit"));
  B.guarded(N.reg("leader"), true, "bra", {B.sym(N.label("done"))});
  emitLoadTask(B, N);
  B.inst("red.global.add.u32",
         {B.address(Task, BATON_TASK_OFFSET_WORKERS_EXITED), B.imm(1)});
  // A worker leaves on STOP only when its leader saw `preempt`; any other
  // v >= end came from a claim past the end.
  B.inst("setp.eq.u32",
         {B.sym(N.reg("preempted")), B.sym(N.reg("v")), B.imm(Stop)});
  B.guarded(N.reg("preempted"), false, "red.global.add.u32",
            {B.address(Task, BATON_TASK_OFFSET_WORKERS_PREEMPTED), B.imm(1)});
  B.label(N.label("done"));
  B.inst("ret", {});

  auto [Begin, End] = B.commit();
  M.Functions[Index].BodyBegin = Begin;
  M.Functions[Index].BodyEnd = End;
  return Index;
}

} // namespace

std::pair<uint32_t, uint32_t> buildPtbVariant(Module &M,
                                              const VariantRequest &R,
                                              const BarrierPlan &Plan) {
  uint32_t Index = addVariantFunction(M, R, VariantKind::Ptb);
  PtbBuilder Builder(M, R, Plan);
  Builder.build(Index);
  return {Index, Builder.registersAdded()};
}

} // namespace baton::detail
