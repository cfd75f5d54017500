# -*- Python -*-
# lit configuration for Baton's tool tests: each test is a small PTX (or, with
# the LLVM front end, IR / CUDA) file that starts with its RUN lines.
import os
import re
import lit.formats

config.name = "Baton"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".ptx", ".test"]
config.excludes = ["Inputs", "corpus", "gpu", "variants-gpu", "unit", "fuzz", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.baton_obj_root, "test")

config.substitutions.append(("%baton-ptx", config.baton_ptx))
config.substitutions.append(("%baton-extract", config.baton_extract))
config.substitutions.append(("%baton-recompile", config.baton_recompile))
# Every emitted module is assembled for Hopper in the test itself.
config.substitutions.append(("%ptxas-path", config.ptxas))
config.substitutions.append(("%ptxas", config.ptxas + " -arch=sm_90a"))
config.substitutions.append(("%python", config.python))
config.substitutions.append(("%corpus", os.path.join(config.baton_src_root, "test", "corpus")))
# The benchmarks' analysis scripts (test/Bench).
config.substitutions.append(("%slow-requests", config.python + " " + os.path.join(
    config.baton_src_root, "bench", "colocation", "slow_requests.py")))
config.substitutions.append(("%compare-settings", config.python + " " + os.path.join(
    config.baton_src_root, "bench", "colocation", "compare_settings.py")))
# The task ABI version, as include/baton/task.h defines it (side-module
# indexes record it).
with open(os.path.join(config.baton_src_root, "include", "baton", "task.h")) as task_h:
    task_abi = re.search(r"#define BATON_TASK_ABI_VERSION (\d+)", task_h.read()).group(1)
config.substitutions.append(("%task-abi", task_abi))

# Fatbin extraction tests (test/Fatbin) build their inputs with nvcc;
# side-module tests (test/SideModule) also use fatbinary and ptxas.
cuda_bin = os.path.dirname(config.ptxas)
nvcc = os.path.join(cuda_bin, "nvcc")
if os.path.exists(nvcc):
    config.available_features.add("nvcc")
    config.substitutions.append(("%nvcc", nvcc))
config.substitutions.append(("%cuda-bin", cuda_bin))
config.substitutions.append(("%fatbinary", os.path.join(cuda_bin, "fatbinary")))

# The launch interposer (test/Preload): %preloaded runs a command with it in
# LD_PRELOAD (after the sanitizer's runtime in a sanitized build).
if config.baton_preload:
    config.available_features.add("preload")
    preloads = [config.baton_preload]
    env = ""
    if config.asan_runtime:
        preloads.insert(0, config.asan_runtime)
        env = " ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0"
    config.substitutions.append(("%preloaded", "env LD_PRELOAD=" +
                                 ":".join(preloads) + env))
    config.substitutions.append(("%preload", config.baton_preload))
else:
    config.excludes += ["Preload"]

# The LLVM front end (test/LLVM: opt + FileCheck on IR; test/Clang: CUDA
# through clang -fpass-plugin), only where the plugin is built.
if config.baton_plugin:
    config.available_features.add("baton-plugin")
    config.suffixes += [".ll", ".cu"]
    clang_cuda = (config.clang + " -x cuda --cuda-gpu-arch=sm_90a"
                  " --cuda-path=" + config.cuda_path +
                  " -Wno-unknown-cuda-version"
                  " -I" + os.path.join(config.cuda_path, "include", "cccl"))
    config.substitutions.append(("%baton-plugin", config.baton_plugin))
    config.substitutions.append(
        ("%opt", config.opt + " -load-pass-plugin=" + config.baton_plugin))
    config.substitutions.append(("%llc", config.llc))
    # %clang-cuda before %clang: lit substitutes in order.
    config.substitutions.append(("%clang-cuda", clang_cuda))
    config.substitutions.append(("%clang", config.clang))
else:
    config.excludes += ["LLVM", "Clang"]

config.environment["PATH"] = os.pathsep.join(
    [config.llvm_tools_dir, config.environment.get("PATH", "")])
