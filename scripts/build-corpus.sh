#!/usr/bin/env bash
# build-corpus.sh - regenerate Baton's corpus of real-compiler PTX.
#
# Compiles every test/corpus/src/*.cu for sm_90a with
#   nvcc      -> test/corpus/nvcc/NAME.ptx
#   clang-22  -> test/corpus/clang/NAME.ptx
#   clang-22 -fpass-plugin=BatonPlugin.so -> test/corpus/clang-plugin/NAME.ptx
#             (originals plus the LLVM plugin's variants, for the GPU harness;
#             BATON_PLUGIN names the plugin, default build/lib/LLVM/)
# plus a few files again with line information (.file/.loc directives and
# DWARF .section blocks, as Triton and `-lineinfo` builds ship them):
#   nvcc -lineinfo            -> test/corpus/nvcc-lineinfo/NAME.ptx
#   clang -gline-tables-only  -> test/corpus/clang-lineinfo/NAME.ptx
# and with nvcc for two other targets (most files; see OTHER_TARGETS):
#   nvcc -arch=sm_80          -> test/corpus/nvcc-sm80/NAME.ptx
#   nvcc -arch=sm_100a        -> test/corpus/nvcc-sm100/NAME.ptx
# then assembles every produced module with ptxas for the target it names
# (fails if any is rejected), writes test/corpus/manifest.txt from the
# `//@ launch` lines in the sources (not for nvcc-sm100/, which an H100
# cannot run), and validates it against the PTX with check-manifest.py. The
# Triton part of the corpus (triton/, triton-manifest.txt) comes from
# scripts/gen-triton-corpus.py on a GPU machine; it is only re-checked here.
#
# The generated .ptx files and manifest.txt are test data and are committed;
# rerun this script after editing a source. Output is deterministic for a
# given toolchain (absolute source paths are stripped from .file lines).
#
# Usage: scripts/build-corpus.sh        (from anywhere)
# Environment: NVCC, CLANG, PTXAS, CUDA_PATH override the tools.

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CORPUS="$ROOT/test/corpus"
SRC="$CORPUS/src"
CUDA_PATH="${CUDA_PATH:-/usr/local/cuda}"
NVCC="${NVCC:-$CUDA_PATH/bin/nvcc}"
CLANG="${CLANG:-clang-22}"
PTXAS="${PTXAS:-$CUDA_PATH/bin/ptxas}"
ARCH=sm_90a
BATON_PLUGIN="${BATON_PLUGIN:-$ROOT/build/lib/LLVM/BatonPlugin.so}"
[[ -f "$BATON_PLUGIN" ]] || { echo "no plugin at $BATON_PLUGIN (build BatonPlugin or set BATON_PLUGIN)" >&2; exit 1; }

NVCC_FLAGS=(-ptx -arch="$ARCH" -O3)
CLANG_FLAGS=(-x cuda --cuda-gpu-arch="$ARCH" --cuda-device-only -S -O3
             --cuda-path="$CUDA_PATH" -Wno-unknown-cuda-version
             -I"$CUDA_PATH/include/cccl")

# Per-file extras. Keep these lists short and explain every entry.
#
# Relocatable device code: device-side launches need -rdc (nvcc) /
# -fgpu-rdc (clang); ptxas then needs -c (the module has unresolved externs,
# cudaLaunchDeviceV2 etc., that only the device linker resolves).
RDC_FILES=(refuse_dynpar)
# Extra clang defines.
#   refuse_cluster: cooperative_groups only declares cluster_group for nvcc
#   and NVRTC unless _CG_CLUSTER_INTRINSICS_AVAILABLE is defined; clang-22
#   has the cluster builtins, so we opt in. Note that clang-22 accepts
#   __cluster_dims__ but does not emit .reqnctapercluster/.explicitcluster;
#   its PTX still uses barrier.cluster, mapa and %cluster_* registers.
declare -A CLANG_EXTRA=([refuse_cluster]="-D_CG_CLUSTER_INTRINSICS_AVAILABLE")
# Files also built with line information.
LINEINFO_FILES=(reduce grids)
# Other targets: every source again with nvcc for Ampere (sm_80: code
# without Hopper instructions, cp.async instead of TMA; run on a GPU too,
# as the H100 JITs it) and for Blackwell (sm_100a; assembled, not run).
# Sources whose kernels need sm_90 are left out of sm_80: calls
# (griddepcontrol in inline asm), refuse_cluster (clusters) and
# refuse_setmaxnreg (setmaxnreg).
OTHER_TARGETS=(sm_80 sm_100a)
SM80_SKIP=(calls refuse_cluster refuse_setmaxnreg)
# Files clang cannot compile: none at present. (Add NAME here with a comment
# saying why, and the manifest will omit its clang lines.)
CLANG_SKIP=()

in_list() {  # in_list NEEDLE LIST...
  local n="$1"; shift
  local x
  for x in "$@"; do [[ "$x" == "$n" ]] && return 0; done
  return 1
}

# The target a module's `.target` directive names (sm_90a, sm_80, ...).
module_target() {
  sed -n -e 's/^\.target \(sm_[0-9a-z]*\).*/\1/p' "$1" | head -n 1
}

# nvcc writes the absolute path of the source into .file; make it relative to
# src/ so the committed data does not depend on where the tree was checked out.
strip_src_paths() {
  sed -i -e "s|\"$SRC/|\"|g" "$1"
}

for d in nvcc clang clang-plugin nvcc-lineinfo clang-lineinfo nvcc-sm80 nvcc-sm100; do
  rm -f "$CORPUS/$d"/*.ptx
  mkdir -p "$CORPUS/$d"
done

declare -a BUILT=()    # module paths relative to $CORPUS
declare -a RDC_MODS=() # subset needing ptxas -c

shopt -s nullglob
sources=("$SRC"/*.cu)
(( ${#sources[@]} > 0 )) || { echo "no sources in $SRC" >&2; exit 1; }

cd "$SRC"
for src in "${sources[@]}"; do
  name="$(basename "$src" .cu)"
  nv_extra=() cl_extra=() rdc=0
  if in_list "$name" "${RDC_FILES[@]}"; then
    nv_extra+=(-rdc=true); cl_extra+=(-fgpu-rdc); rdc=1
  fi
  if [[ -n "${CLANG_EXTRA[$name]:-}" ]]; then
    read -r -a more <<<"${CLANG_EXTRA[$name]}"
    cl_extra+=("${more[@]}")
  fi

  echo "nvcc   $name.cu"
  "$NVCC" "${NVCC_FLAGS[@]}" "${nv_extra[@]}" -o "$CORPUS/nvcc/$name.ptx" "$name.cu"
  BUILT+=("nvcc/$name.ptx"); (( rdc )) && RDC_MODS+=("nvcc/$name.ptx")

  if in_list "$name" "${CLANG_SKIP[@]}"; then
    echo "clang  $name.cu  (skipped, see CLANG_SKIP)"
  else
    echo "clang  $name.cu"
    "$CLANG" "${CLANG_FLAGS[@]}" "${cl_extra[@]}" -o "$CORPUS/clang/$name.ptx" "$name.cu"
    BUILT+=("clang/$name.ptx"); (( rdc )) && RDC_MODS+=("clang/$name.ptx")
    echo "clang  $name.cu  (-fpass-plugin)"
    "$CLANG" "${CLANG_FLAGS[@]}" "${cl_extra[@]}" -fpass-plugin="$BATON_PLUGIN" \
      -Wno-backend-plugin -o "$CORPUS/clang-plugin/$name.ptx" "$name.cu"
    BUILT+=("clang-plugin/$name.ptx"); (( rdc )) && RDC_MODS+=("clang-plugin/$name.ptx")
  fi

  if in_list "$name" "${LINEINFO_FILES[@]}"; then
    echo "nvcc   $name.cu  (-lineinfo)"
    "$NVCC" "${NVCC_FLAGS[@]}" "${nv_extra[@]}" -lineinfo \
      -o "$CORPUS/nvcc-lineinfo/$name.ptx" "$name.cu"
    strip_src_paths "$CORPUS/nvcc-lineinfo/$name.ptx"
    BUILT+=("nvcc-lineinfo/$name.ptx"); (( rdc )) && RDC_MODS+=("nvcc-lineinfo/$name.ptx")
    if ! in_list "$name" "${CLANG_SKIP[@]}"; then
      echo "clang  $name.cu  (-gline-tables-only)"
      "$CLANG" "${CLANG_FLAGS[@]}" "${cl_extra[@]}" -gline-tables-only \
        -fdebug-prefix-map="$SRC"=. \
        -o "$CORPUS/clang-lineinfo/$name.ptx" "$name.cu"
      BUILT+=("clang-lineinfo/$name.ptx"); (( rdc )) && RDC_MODS+=("clang-lineinfo/$name.ptx")
    fi
  fi

  for target in "${OTHER_TARGETS[@]}"; do
    [[ $target == sm_80 ]] && in_list "$name" "${SM80_SKIP[@]}" && continue
    number="${target#sm_}"; dir="nvcc-sm${number%a}"
    echo "nvcc   $name.cu  (-arch=$target)"
    "$NVCC" -ptx -arch="$target" -O3 "${nv_extra[@]}" -o "$CORPUS/$dir/$name.ptx" "$name.cu"
    BUILT+=("$dir/$name.ptx"); (( rdc )) && RDC_MODS+=("$dir/$name.ptx")
  done
done

# Every module must assemble, for the target it names.
cd "$CORPUS"
fail=0
for m in "${BUILT[@]}"; do
  flags=(-arch="$(module_target "$m")")
  in_list "$m" "${RDC_MODS[@]}" && flags+=(-c)
  if ! "$PTXAS" "${flags[@]}" -o /dev/null "$m"; then
    echo "ptxas REJECTED $m" >&2
    fail=1
  fi
done
(( fail == 0 )) || { echo "build-corpus: ptxas rejected at least one module" >&2; exit 1; }
echo "ptxas: all ${#BUILT[@]} modules assemble"

# Manifest: one line per (module, kernel) for every `//@ launch` line. Files
# without launch lines (the refuse_* sources) contribute nothing.
{
  echo "# Baton corpus launch manifest. GENERATED by scripts/build-corpus.sh from"
  echo "# the '//@ launch' lines in test/corpus/src/*.cu - edit those, not this."
  echo "# Format: MODULE KERNEL GX,GY,GZ BX,BY,BZ DYN_SMEM_BYTES PARAM..."
  echo "# (see test/corpus/README.md). Refusal kernels (refuse_*.cu) have no lines."
  for m in "${BUILT[@]}"; do
    [[ $m == nvcc-sm100/* ]] && continue # Blackwell PTX does not run on Hopper
    name="$(basename "$m" .ptx)"
    grep -E '^//@ launch ' "$SRC/$name.cu" | sed -e 's|^//@ launch ||' -e "s|^|$m |" || true
  done
} > "$CORPUS/manifest.txt"
echo "manifest: $(grep -vc '^#' "$CORPUS/manifest.txt") launch lines"

python3 "$CORPUS/check-manifest.py" "$CORPUS"

# Triton PTX is produced on a GPU machine by scripts/gen-triton-corpus.py
# (triton-sm80/ with --arch sm80); it is not rebuilt here, but if present it
# must still assemble for its target and match its manifest.
for dir in triton triton-sm80; do
  [[ -f "$CORPUS/$dir-manifest.txt" ]] || continue
  for m in "$CORPUS/$dir"/*.ptx; do
    "$PTXAS" -arch="$(module_target "$m")" -o /dev/null "$m" || { echo "ptxas REJECTED $m" >&2; exit 1; }
  done
  python3 "$CORPUS/check-manifest.py" "$CORPUS" "$CORPUS/$dir-manifest.txt"
done
