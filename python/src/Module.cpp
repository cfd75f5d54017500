//===- Module.cpp - baton._core: the C++ half of the Python package -------===//
//
// What the package (python/baton) needs from the C++ libraries, called
// in-process:
//
//  * transform_ptx: baton-ptx as a function. Parse, add the variants, print;
//    the report is the document `baton-ptx --report` writes, so the Python
//    side and the tool cannot disagree about a kernel. The GIL is released
//    while the transform runs (Triton compiles kernels on several threads).
//  * the router (Router.h), where the runtime is built: launches of Triton
//    kernels handed to the process's scheduler, and brackets of
//    latency-critical work.
//
// Everything else (which launches to route, packing Triton's arguments, the
// on-disk cache, the PyTorch settings) is Python, where it can be tested
// without a GPU.
//
//===----------------------------------------------------------------------===//
#include "baton/PTX/Parser.h"
#include "baton/PTX/Printer.h"
#include "baton/Transform/RegisterBudget.h"
#include "baton/Transform/Report.h"
#include "baton/Transform/Transform.h"
#include "baton/task.h"

#ifdef BATON_PYTHON_BYPASS_GATE
#include "BypassGate.h"
#endif
#ifdef BATON_PYTHON_RUNTIME
#include "Router.h"
#include "baton/Capture.h"
#endif

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

/// A module that does not parse: the message is the parser's located
/// diagnostic ("name:line:col: error: ...").
class PtxError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct TransformOutput {
  std::string Ptx;
  std::string Report;
  std::vector<std::string> Diagnostics;
};

/// Kernel name -> the .maxnreg of its variants (registerBudget()).
using Budgets = std::map<std::string, uint32_t, std::less<>>;

TransformOutput transform(std::string Source, const std::string &Name,
                          bool Slice, bool Ptb,
                          const std::optional<std::vector<std::string>> &Kernels,
                          const Budgets &RegisterBudgets) {
  auto Parsed = baton::ptx::parseModule(std::move(Source), Name);
  if (Parsed.Error)
    throw PtxError(Parsed.Error->str());
  baton::TransformOptions Opts;
  Opts.MakeSlice = Slice;
  Opts.MakePtb = Ptb;
  if (Kernels)
    Opts.SelectKernel = [&](std::string_view K) {
      return std::find(Kernels->begin(), Kernels->end(), K) != Kernels->end();
    };
  if (!RegisterBudgets.empty())
    Opts.RegisterBudget = [&](std::string_view K, const baton::KernelFacts &)
        -> std::optional<uint32_t> {
      auto It = RegisterBudgets.find(K);
      return It == RegisterBudgets.end() ? std::nullopt
                                         : std::optional(It->second);
    };
  baton::TransformResult R = baton::transformModule(*Parsed.Mod, Opts);
  TransformOutput Out;
  Out.Ptx = baton::ptx::printModule(*Parsed.Mod);
  Out.Report = baton::reportToJson(R, Name);
  for (const auto &D : R.Diagnostics)
    Out.Diagnostics.push_back(D.str());
  return Out;
}

py::tuple transformPtx(std::string Source, const std::string &Name, bool Slice,
                       bool Ptb, std::optional<std::vector<std::string>> Kernels,
                       const Budgets &RegisterBudgets) {
  TransformOutput Out;
  {
    py::gil_scoped_release NoGil;
    Out = transform(std::move(Source), Name, Slice, Ptb, Kernels,
                    RegisterBudgets);
  }
  return py::make_tuple(std::move(Out.Ptx), std::move(Out.Report),
                        std::move(Out.Diagnostics));
}

#ifdef BATON_PYTHON_RUNTIME
using baton::python::Router;

/// A CUfunction or CUstream as Triton and PyTorch pass them: an integer.
template <class Handle> Handle handle(uint64_t Value) {
  return reinterpret_cast<Handle>(static_cast<uintptr_t>(Value));
}

py::dict bindingDict(const baton::python::KernelBinding &B) {
  py::dict D;
  D["name"] = B.Name;
  D["slice"] = B.Slice;
  D["ptb"] = B.Ptb;
  D["param_sizes"] = B.ParamSizes;
  D["own_module"] = B.OwnModule;
  D["registers"] = B.Registers;
  return D;
}

void bindRouter(py::module_ &M) {
  M.def("router_start", [] {
        py::gil_scoped_release NoGil;
        Router::get();
      },
      "Starts the process's router (runtime and scheduler thread) if it is "
      "not running; raises RuntimeError if the runtime cannot start (no "
      "driver, no device).");
  M.def("join_registry", [] {
        py::gil_scoped_release NoGil;
        return Router::get().joinRegistry();
      },
      "Starts the router if it is not running (RuntimeError if it cannot) "
      "and joins the GPU's registry of sharing processes (baton/share.h) "
      "as latency-critical now rather than at the first bracket; False if "
      "BATON_SHARE=0 or the join failed (the reason is on stderr).");
  M.def("router_running", &Router::running,
        "Whether the router has started.");
  M.def("function_epoch", [](uint64_t Function) {
        return Router::epoch(handle<CUfunction>(Function));
      },
      py::arg("function"),
      "The epoch of a CUfunction handle: read while the kernel it names is "
      "loaded, passed to bind() and bind_image() (Router.h).");
  M.def("forget_function", [](uint64_t Function) {
        py::gil_scoped_release NoGil;
        [[maybe_unused]] std::vector<CUfunction> Variants =
            Router::forget(handle<CUfunction>(Function));
#ifdef BATON_PYTHON_BYPASS_GATE
        baton::python::BypassGate::forget(handle<CUfunction>(Function));
        for (CUfunction V : Variants) // those in Triton's module go with it
          baton::python::BypassGate::forget(V);
#endif
      },
      py::arg("function"),
      "A CUfunction handle is unloaded or was loaded again, for another "
      "kernel: what was bound, timed or known to the bypass gate for it "
      "and its variants is dropped, and its epoch advances.");
  M.def("bind", [](uint64_t Function, uint64_t Epoch) {
        baton::python::KernelBinding B;
        {
          py::gil_scoped_release NoGil;
          B = Router::get().bind(handle<CUfunction>(Function), Epoch);
        }
        return bindingDict(B);
      },
      py::arg("function"), py::arg("epoch"),
      "Binds a loaded kernel (a CUfunction, at `epoch`) to the variants "
      "found beside it in its module; returns {name, slice, ptb, "
      "param_sizes, own_module, registers} (registers: the original's, per "
      "thread). Raises if the handle was loaded again since `epoch`.");
  M.def("bind_image", [](uint64_t Function, py::bytes Image,
                         const std::string &Name, uint64_t Epoch) {
        std::string_view Bytes = Image;
        baton::python::KernelBinding B;
        {
          py::gil_scoped_release NoGil;
          B = Router::get().bindImage(
              handle<CUfunction>(Function),
              std::as_bytes(std::span(Bytes.data(), Bytes.size())), Name,
              Epoch);
        }
        return bindingDict(B);
      },
      py::arg("function"), py::arg("image"), py::arg("name"),
      py::arg("epoch"),
      "Binds a loaded kernel (at `epoch`) to kernel `name` of `image` (a "
      "cubin that holds its variants): launches of `function` routed by "
      "submit() run that module's variants. Raises if the handle was "
      "loaded again since `epoch`.");
  M.def("submit",
        [](uint64_t Function, uint32_t Gx, uint32_t Gy, uint32_t Gz,
           uint32_t Bx, uint32_t Shared, uint64_t Stream, py::bytes Params) {
          std::string_view Bytes = Params;
          py::gil_scoped_release NoGil;
          return Router::get().submit(
              handle<CUfunction>(Function), {Gx, Gy, Gz}, {Bx, 1, 1}, Shared,
              handle<CUstream>(Stream),
              std::as_bytes(std::span(Bytes.data(), Bytes.size())));
        },
        py::arg("function"), py::arg("gx"), py::arg("gy"), py::arg("gz"),
        py::arg("block_x"), py::arg("shared"), py::arg("stream"),
        py::arg("params"),
        "Hands one launch of a bound kernel to the scheduler as best-effort "
        "work on `stream` (0: the legacy default stream). `params` holds "
        "the kernel's parameter values back to back, in the sizes bind() "
        "returned. Returns False, having issued nothing, if the stream is "
        "capturing a CUDA graph: launch the original then.");
  M.def("hold_for_load", [](double PatienceUs) {
        // At most an hour: a larger or non-finite value is taken as that.
        auto Patience = std::chrono::microseconds(int64_t(
            std::isfinite(PatienceUs) ? std::clamp(PatienceUs, 0.0, 3.6e9)
                                      : 3.6e9));
        py::gil_scoped_release NoGil;
        return Router::get().holdForLoad(Patience);
      },
      py::arg("patience_us") = 1e5,
      "Before a module load: holds best-effort launches back once none is "
      "left on the device (a load made while one waits paused never "
      "returns). Routed work that latency-critical work keeps paused for "
      "longer than patience_us is drained: it stops yielding until it is "
      "done. Returns the hold's id for release_hold().");
  M.def("release_hold", [](uint64_t Id) {
        py::gil_scoped_release NoGil;
        Router::get().releaseHold(Id);
      },
        py::arg("id"), "Ends a hold of hold_for_load(); 0 is ignored.");
  M.def("lc_begin", [](uint32_t Sms) {
        py::gil_scoped_release NoGil;
        return Router::get().lcBegin(Sms);
      },
      py::arg("sms") = 0,
      "Latency-critical work starts: best-effort launches yield (pause with "
      "sms=0, shrink to the other SMs otherwise). Returns its id.");
  M.def("lc_end", [](uint64_t Id) {
        py::gil_scoped_release NoGil;
        Router::get().lcEnd(Id);
      },
      py::arg("id"));
  M.def("lc_touch", [](uint64_t Stream, uint32_t Sms, double GraceUs) {
        py::gil_scoped_release NoGil;
        return Router::get().lcTouch(
            handle<CUstream>(Stream), Sms,
            std::chrono::microseconds(int64_t(GraceUs)));
      },
      py::arg("stream"), py::arg("sms") = 0, py::arg("grace_us") = 200.0,
      "Latency-critical work is about to be queued on `stream`: opens a "
      "bracket if none is open; it closes once every stream touched is idle "
      "and none was touched for grace_us. Returns False, doing nothing, if "
      "the stream is capturing a CUDA graph.");
  M.def("stream_capturing", [](uint64_t Stream) {
        CUstream S = handle<CUstream>(Stream);
        return baton::streamCapturing(S ? S : CU_STREAM_LEGACY);
      },
      py::arg("stream"),
      "Whether work issued to `stream` (0: the legacy default stream) now "
      "would be captured into a CUDA graph rather than run (baton/Capture.h)."
      " Such launches must not be routed: the graph's replays bypass Baton.");
  M.def("lc_open", [] { return Router::get().lcOpen(); },
        "Whether a latency-critical bracket is open in this process, or, "
        "with BATON_BE_GATE_PEERS=1, in another one sharing the GPU.");
  M.def("be_gate", [](double MaxUs) -> double {
        Router &R = Router::get();
        if (!R.lcOpen())
          return 0.0; // the common case: no wait, the GIL kept
        py::gil_scoped_release NoGil;
        return double(R.waitWhileLc(
                          std::chrono::microseconds(int64_t(MaxUs)))
                          .count());
      },
      py::arg("max_us") = 100000.0,
      "Called by best-effort threads before a launch: returns at once "
      "unless a latency-critical bracket is open (see lc_open), else waits "
      "(without the GIL) until none is, at most max_us; returns the "
      "microseconds waited.");
  M.def("time_begin", [](uint64_t Function, uint64_t Stream) {
        return Router::get().timeBegin(handle<CUfunction>(Function),
                                       handle<CUstream>(Stream));
      },
      py::arg("function"), py::arg("stream"),
      "Records the start of a timed launch of `function` on `stream`; "
      "returns a token for time_end (0 if no event could be made).");
  M.def("time_end", [](uint64_t Token, uint64_t Stream) {
        Router::get().timeEnd(Token, handle<CUstream>(Stream));
      },
      py::arg("token"), py::arg("stream"));
  M.def("kernel_time_us", [](uint64_t Function, size_t Samples) {
        return Router::get().kernelTimeUs(handle<CUfunction>(Function),
                                          Samples);
      },
      py::arg("function"), py::arg("samples") = 3,
      "Median duration of the timed launches of `function`, in "
      "microseconds, once `samples` of them have completed; else -1.");
  M.def("synchronize", [] {
        py::gil_scoped_release NoGil;
        Router::get().synchronize();
      },
      "Waits until every routed launch has completed; raises RuntimeError "
      "if one failed.");
  M.def("stats", [] {
        baton::python::RouterStats S = Router::get().stats();
        py::dict D;
        D["latency_critical"] = S.LatencyCritical;
        D["best_effort"] = S.BestEffort;
        D["resumes"] = S.Resumes;
        D["pauses"] = S.Pauses;
        D["originals"] = S.Originals;
        D["brackets"] = S.Brackets;
        D["auto_brackets"] = S.AutoBrackets;
        D["announced"] = S.Announced;
        D["gate_waits"] = S.GateWaits;
        D["gate_wait_us"] = S.GateWaitUs;
        D["drains"] = S.Drains;
        D["expired_brackets"] = S.ExpiredBrackets;
        return D;
      });
  M.def("remote_latency_critical", [](int Device) {
        py::gil_scoped_release NoGil;
        return Router::remoteLatencyCritical(Device);
      },
      py::arg("device") = 0,
      "Whether another live process of the GPU's registry (baton/share.h) "
      "is latency-critical; False if there is no registry.");
}
#endif

#ifdef BATON_PYTHON_BYPASS_GATE
using baton::python::BypassGate;

BypassGate::ThreadClass gateClass(const std::string &Class) {
  if (Class == "best-effort")
    return BypassGate::ThreadClass::BestEffort;
  if (Class == "latency-critical")
    return BypassGate::ThreadClass::LatencyCritical;
  if (Class == "none")
    return BypassGate::ThreadClass::None;
  throw py::value_error("thread class must be 'best-effort', "
                        "'latency-critical' or 'none', not '" + Class + "'");
}

void bindBypassGate(py::module_ &M) {
  M.def("bypass_gate_start", [](const std::string &CuptiPath,
                                double MaxHoldUs, double IdleAfterUs) {
        if (!(IdleAfterUs >= 0))
          throw py::value_error("idle_after_us must be 0 or more");
        py::gil_scoped_release NoGil;
        Router::get();
        return BypassGate::start(
            CuptiPath, std::chrono::microseconds(int64_t(MaxHoldUs)),
            std::chrono::microseconds(int64_t(IdleAfterUs)));
      },
      py::arg("cupti_path") = "", py::arg("max_hold_us") = 100000.0,
      py::arg("idle_after_us") = 0.0,
      "Starts the gate that holds kernels bypassing Baton back on the "
      "device while a latency-critical bracket is open, for at most "
      "max_hold_us, and stops listening to launches once no bracket has "
      "opened or closed for idle_after_us (0: never) until the next one "
      "opens (BypassGate.h). Returns '' if it is on, else why not.");
  M.def("bypass_gate_stop", [] {
        py::gil_scoped_release NoGil;
        BypassGate::stop();
      },
      "Stops the gate (CUPTI allows one subscriber: a profiler needs it).");
  M.def("bypass_gate_thread_class", [](uint64_t Thread,
                                       const std::string &Class) {
        BypassGate::setThreadClass(Thread, gateClass(Class));
      },
      py::arg("thread"), py::arg("cls"),
      "The class of the thread with ident `thread` for the gate: "
      "'best-effort' (gated), 'latency-critical' or 'none' (the default "
      "class).");
  M.def("bypass_gate_default_class", [](const std::string &Class) {
        BypassGate::setDefaultClass(gateClass(Class));
      },
      py::arg("cls"), "The class of threads that have none.");
  M.def("bypass_gate_clear_classes", [] { BypassGate::clearThreadClasses(); },
        "Forgets every thread's class; the default becomes 'none'.");
  M.def("bypass_gate_stats", [] {
        baton::python::BypassGateStats S = BypassGate::stats();
        py::dict D;
        D["on"] = S.On;
        D["why_off"] = S.Why;
        D["gated"] = S.Gated;
        D["holds"] = S.Holds;
        D["expired"] = S.Expired;
        D["listening"] = S.Listening;
        D["sleeps"] = S.Sleeps;
        D["wakes"] = S.Wakes;
        D["listen_error"] = S.ListenError;
        D["most_gated"] = BypassGate::mostGated(10);
        return D;
      },
      "The gate's state and counts; most_gated: the ten kernels with the "
      "most gated launches, as (name, launches).");
  M.def("bypass_gate_short", [](uint64_t Function, double TimeUs) {
        BypassGate::setShort(handle<CUfunction>(Function), TimeUs);
      },
      py::arg("function"), py::arg("time_us"),
      "The kernel with this CUfunction handle is known to be short (its "
      "median time): its launches go without a wait while the short "
      "kernels queued on their stream since its last wait stay within the "
      "short budget.");
  M.def("bypass_gate_not_short", [](uint64_t Function) {
        BypassGate::clearShort(handle<CUfunction>(Function));
      },
      py::arg("function"), "The kernel is no longer known to be short.");
  M.def("bypass_gate_short_budget", [](double Us) {
        BypassGate::setShortBudget(Us);
      },
      py::arg("us"),
      "Microseconds of short kernels a stream may queue without a wait "
      "(default: 100).");
}
#endif

} // namespace

PYBIND11_MODULE(_core, M) {
  M.doc() = "baton._core: the PTX transform and the launch router of Baton";
  py::register_exception<PtxError>(M, "PtxError", PyExc_ValueError);

  M.def("transform_ptx", &transformPtx, py::arg("ptx"),
        py::arg("name") = "<ptx>", py::arg("slice") = true,
        py::arg("ptb") = true, py::arg("kernels") = py::none(),
        py::arg("register_budgets") = Budgets(),
        "Adds Baton variants to the kernels of a PTX module, as baton-ptx "
        "does; register_budgets maps kernel names to the .maxnreg of their "
        "variants. Returns (ptx, report_json, diagnostics); raises PtxError "
        "if the module does not parse.");
  M.def("register_budget",
        [](uint32_t Sm, uint32_t Registers, std::optional<uint32_t> Threads,
           uint64_t SharedBytes) -> std::optional<uint32_t> {
          std::optional<baton::SmLimits> L = baton::smLimits(Sm);
          if (!L)
            return std::nullopt;
          return baton::registerBudget(*L, Registers, {Threads, SharedBytes});
        },
        py::arg("sm"), py::arg("registers"), py::arg("threads") = py::none(),
        py::arg("shared_bytes") = 0,
        "The most registers per thread with which a variant of a kernel "
        "using `registers` still fits as many blocks on an SM of sm_<sm> "
        "(90 for sm_90/sm_90a) as the original; None when no limit is needed "
        "or the architecture is not known.");
  M.attr("SLICE_SUFFIX") = BATON_SLICE_SUFFIX;
  M.attr("PTB_SUFFIX") = BATON_PTB_SUFFIX;
  M.attr("PTB_DYNAMIC_SHARED_BYTES") = BATON_PTB_DYNAMIC_SHARED_BYTES;
#ifdef BATON_PYTHON_RUNTIME
  M.attr("HAS_RUNTIME") = true;
  bindRouter(M);
#else
  M.attr("HAS_RUNTIME") = false;
#endif
#ifdef BATON_PYTHON_BYPASS_GATE
  M.attr("HAS_BYPASS_GATE") = true;
  bindBypassGate(M);
#else
  M.attr("HAS_BYPASS_GATE") = false;
#endif
}
