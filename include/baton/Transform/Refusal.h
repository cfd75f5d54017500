//===- baton/Transform/Refusal.h - Why a kernel gets no variant -*- C++ -*-===//
//
// Refuse, never miscompile: a kernel whose variant cannot be shown to behave
// like the original gets none, with a reason naming the construct and its
// line. The kinds are shared by the PTX and LLVM front ends; docs/refusals.md
// explains each one and what a user can do about it.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_TRANSFORM_REFUSAL_H
#define BATON_TRANSFORM_REFUSAL_H

#include <cstdint>
#include <string>
#include <string_view>

namespace baton {

enum class RefusalKind {
  GridSync,            ///< cooperative-launch grid synchronisation
  Cluster,             ///< thread-block cluster registers, barriers, launch
  DynamicParallelism,  ///< device-side launches / device runtime API
  HardwareId,          ///< %smid, %nsmid, %gridid, %current_graph_exec read
  ExternalCall,        ///< call to a function whose body is not in the module
  IndirectCall,        ///< call through a pointer that may read the block id
  BlockIdVector,       ///< %ctaid / %nctaid read as a whole vector
  ExitInCallee,        ///< exit inside a device function (PTB only)
  BarrierInCallee,     ///< CTA barrier inside a device function (PTB only)
  ExitOrBarrierInAsm,  ///< exit or CTA barrier among other inline PTX of
                       ///< the kernel (LLVM plugin; PTB only)
  BarrierRegisterId,   ///< barrier id held in a register (PTB only)
  BarrierReduction,    ///< bar.red the PTB variant cannot keep (PTB only)
  NoFreeBarrier,       ///< all 16 barriers in use (PTB only)
  RegisterReallocation,///< setmaxnreg (PTB only)
  TensorMemoryPermit,  ///< tcgen05.relinquish_alloc_permit (PTB only)
  SharedMemorySize,    ///< shared memory size a PTB launch changes (PTB only)
  Recursion,           ///< a recursive device function is reached (PTB only)
  DynamicStack,        ///< stack allocated at run time in the kernel body
                       ///< (alloca; PTB only)
  ParamSpace,          ///< parameters leave no room for the task pointer
  AddressSize32,       ///< .address_size 32: the task pointer is 64-bit
  NameCollision,       ///< a variant's name is already taken
  ReturnsValue,        ///< a kernel with a return value (LLVM plugin)
  Sm1xTarget,          ///< .target sm_10 to sm_13
  ModuleScopeState,    ///< module-scope .reg or .local, which ptxas takes
                       ///< only below the PTX the PTB variant needs
                       ///< (PTB only)
};

/// Stable identifier used in reports and docs: "grid-sync", "cluster", ...
std::string_view refusalKindName(RefusalKind Kind);
/// True if the kind only rules out the PTB variant.
bool refusalIsPtbOnly(RefusalKind Kind);
/// Extern functions a kernel may call without `external-call`, in both
/// front ends: ptxas supplies their bodies (vprintf, malloc, free,
/// __assertfail, __assert_fail), or they fill vtables' abstract slots and
/// trap (__cxa_pure_virtual, __cxa_deleted_virtual); none can observe the
/// block index.
bool isKnownSafeExternal(std::string_view Name);
/// Special registers that give a CTA's shared memory rounded to the
/// allocation unit (%aggr_smem_size with the CTA's reserved part): a PTB
/// launch's extra bytes change them, and no subtraction gives back the
/// original's value, so a kernel that reads one gets no PTB variant
/// (`shared-memory-size`), in both front ends.
inline constexpr std::string_view RoundedSharedMemorySizeRegisters[] = {
    "%total_smem_size", "%aggr_smem_size"};
bool isRoundedSharedMemorySize(std::string_view Register);
/// The `recursion` refusal's message for a call to \p Callee. Both front
/// ends use it: the cause is ptxas's, measured, not either front end's.
std::string recursionMessage(std::string_view Callee);
/// The `external-call` refusal's message for an indirect call in a module
/// that declares \p Symbol for another module to define, in both front ends.
std::string linkedModuleCallMessage(std::string_view Symbol);
/// The `barrier-reduction` refusal's message, in both front ends; \p Where
/// says where threads may part before the reduction.
std::string barrierReductionMessage(std::string_view Where);
/// The `hardware-id` refusal's message for %current_graph_exec, in both
/// front ends.
inline constexpr std::string_view CurrentGraphExecMessage =
    "reads %current_graph_exec, the device graph the launch belongs to, "
    "which a variant's launch (made by the scheduler, in no graph) does not "
    "reproduce";
/// The `dynamic-stack` refusal's message, in both front ends.
inline constexpr std::string_view DynamicStackMessage =
    "allocates stack memory at run time (alloca) in the kernel body; only "
    "the kernel's return gives it back, and a PTB worker runs the body once "
    "per virtual block without returning, so its stack would grow with "
    "every block until it overflows";
/// The most parameter space a kernel may take, by the PTX ISA version its
/// code is for and its target sm_<Sm>: 32,764 bytes from PTX 8.1 on sm_70
/// and later, 4,096 otherwise (the limit CUDA documented before 12.1; ptxas
/// 13.0 accepts 4,352 there). Both front ends use it.
uint64_t kernelParamSpaceLimit(unsigned PtxMajor, unsigned PtxMinor,
                               unsigned Sm);
/// Bytes a variant's parameters take: the kernel's, then the 8-byte task
/// pointer at the next multiple of 8.
uint64_t paramBytesWithTask(uint64_t KernelBytes);
/// The `param-space` refusal's message for a kernel whose parameters take
/// \p KernelBytes, under \p Limit.
std::string paramSpaceMessage(uint64_t KernelBytes, uint64_t Limit);
/// The `grid-sync` refusal's message for a grid-wide barrier written by
/// hand (a wait for a global counter to reach a number computed from the
/// grid size), in both front ends.
inline constexpr std::string_view GridWideWaitMessage =
    "waits in a loop until a value in global memory reaches one computed "
    "from the grid size (%nctaid): a grid-wide barrier written by hand, "
    "which needs every block of the grid resident at once, while a variant "
    "runs the grid a part at a time (it would hang)";
/// The `grid-sync` refusal's message for a barrier written by hand whose
/// blocks count themselves in at a word and then wait for it to reach a
/// constant (a count the host set, down to zero), in both front ends.
inline constexpr std::string_view CountWaitMessage =
    "counts its block in at a word in global memory with an atomic, then "
    "waits in a loop until that word reaches a fixed number: a grid-wide "
    "barrier written by hand (counting down from a number the host set, or "
    "up to one in the source), which needs every block of the grid resident "
    "at once, while a variant runs the grid a part at a time (it would "
    "hang)";
/// The `grid-sync` refusal's message for a sense-reversing barrier written
/// by hand, in both front ends.
inline constexpr std::string_view GenerationWaitMessage =
    "waits in a loop for a word in global memory to change from the value "
    "it read before, where the block that arrives last (by an atomic count "
    "checked against the grid size, %nctaid) changes it: a sense-reversing "
    "grid-wide barrier written by hand, which needs every block of the grid "
    "resident at once, while a variant runs the grid a part at a time (it "
    "would hang)";

struct Refusal {
  RefusalKind Kind;
  std::string Construct; ///< the offending text, e.g. "mov.u32 %r1, %smid"
  std::string Function;  ///< where it is: the kernel or a callee
  uint32_t Line = 0;
  uint32_t Column = 0;
  std::string Message;   ///< one sentence, without location
};

} // namespace baton

#endif // BATON_TRANSFORM_REFUSAL_H
