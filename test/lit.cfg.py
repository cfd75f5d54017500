# -*- Python -*-
# lit configuration for Baton's tool tests: each test is a small PTX (or, with
# the LLVM front end, IR / CUDA) file that starts with its RUN lines.
import os
import lit.formats

config.name = "Baton"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".ptx", ".test"]
config.excludes = ["Inputs", "corpus", "gpu", "variants-gpu", "unit", "fuzz", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.baton_obj_root, "test")

config.substitutions.append(("%baton-ptx", config.baton_ptx))
# Every emitted module is assembled for Hopper in the test itself.
config.substitutions.append(("%ptxas-path", config.ptxas))
config.substitutions.append(("%ptxas", config.ptxas + " -arch=sm_90a"))
config.substitutions.append(("%python", config.python))
config.substitutions.append(("%corpus", os.path.join(config.baton_src_root, "test", "corpus")))
config.environment["PATH"] = os.pathsep.join(
    [config.llvm_tools_dir, config.environment.get("PATH", "")])
