# BatonCuda.cmake - compile CUDA sources with clang and the Baton plugin, so
# that their kernels get preemptible variants and their launches go through
# Baton's scheduler, with no change to the sources.
#
# Paste this file into your build (or include() it from Baton's tree), then:
#
#   set(BATON_PLUGIN /path/to/BatonPlugin.so)   # Baton's pass plugin
#   include(BatonCuda)
#   baton_add_cuda_objects(MyOpObjects SOURCES my_op.cu
#                          INCLUDE_DIRECTORIES ${CMAKE_CURRENT_SOURCE_DIR})
#   add_library(my_op SHARED ${MyOpObjects})
#   target_link_libraries(my_op PRIVATE baton::cuda CUDA::cudart)
#
# Options of baton_add_cuda_objects(<out-var> ...):
#   SOURCES file.cu...         the CUDA sources (host and device code)
#   INCLUDE_DIRECTORIES dir... extra -I directories
#   DEFINITIONS NAME=VALUE...  extra -D definitions
#   ARCH sm_90a                the GPU architecture (default BATON_CUDA_ARCH)
#   NO_PLUGIN                  compile the same way without the plugin, for
#                              comparisons
#   LAZY                       add no variants at compile time (the build then
#                              costs what it costs without the plugin): the
#                              first launch of a kernel builds the variants
#                              from the PTX that the fatbins then carry, into
#                              the side-module cache (docs/llvm-plugin.md)
#
# clang 22 knows CUDA up to 12.x; with CUDA 13 it needs --cuda-path, the
# cccl include directory (cooperative_groups, cub) and
# -Wno-unknown-cuda-version. The function adds all three.

find_package(CUDAToolkit REQUIRED)
find_program(BATON_CLANG NAMES clang++-22 clang-22 clang++
              DOC "clang used to compile CUDA sources with the Baton plugin")
set(BATON_CUDA_ARCH "sm_90a" CACHE STRING "GPU architecture for Baton CUDA sources")
get_filename_component(BATON_CUDA_PATH "${CUDAToolkit_BIN_DIR}" DIRECTORY)

function(baton_add_cuda_objects OutVar)
  cmake_parse_arguments(ARG "NO_PLUGIN;LAZY" "ARCH"
                        "SOURCES;INCLUDE_DIRECTORIES;DEFINITIONS" ${ARGN})
  if(NOT ARG_ARCH)
    set(ARG_ARCH ${BATON_CUDA_ARCH})
  endif()
  if(NOT BATON_CLANG)
    message(FATAL_ERROR "baton_add_cuda_objects: clang-22 not found")
  endif()
  set(Flags -x cuda --cuda-gpu-arch=${ARG_ARCH} --cuda-path=${BATON_CUDA_PATH}
            -Wno-unknown-cuda-version -I${BATON_CUDA_PATH}/include/cccl
            -std=c++17 -O3 -fPIC)
  set(Depends)
  if(NOT ARG_NO_PLUGIN)
    if(NOT BATON_PLUGIN)
      message(FATAL_ERROR "baton_add_cuda_objects: set BATON_PLUGIN to the "
                          "path of BatonPlugin.so")
    endif()
    list(APPEND Flags -fpass-plugin=${BATON_PLUGIN})
    if(ARG_LAZY)
      list(APPEND Flags -mllvm -baton-lazy --cuda-include-ptx=${ARG_ARCH})
    endif()
    if(TARGET BatonPlugin)
      list(APPEND Depends BatonPlugin)
    endif()
  endif()
  foreach(Dir IN LISTS ARG_INCLUDE_DIRECTORIES)
    list(APPEND Flags -I${Dir})
  endforeach()
  foreach(Def IN LISTS ARG_DEFINITIONS)
    list(APPEND Flags -D${Def})
  endforeach()
  set(Kind baton)
  if(ARG_NO_PLUGIN)
    set(Kind plain)
  elseif(ARG_LAZY)
    set(Kind lazy)
  endif()
  set(Objects)
  foreach(Source IN LISTS ARG_SOURCES)
    get_filename_component(Abs ${Source} ABSOLUTE)
    get_filename_component(Stem ${Source} NAME_WE)
    set(Object ${CMAKE_CURRENT_BINARY_DIR}/${OutVar}-${Kind}/${Stem}.o)
    add_custom_command(
      OUTPUT ${Object}
      COMMAND ${BATON_CLANG} ${Flags} -MD -MF ${Object}.d -c ${Abs} -o ${Object}
      DEPENDS ${Abs} ${Depends}
      DEPFILE ${Object}.d
      COMMENT "Compiling ${Source} with clang (${Kind})"
      VERBATIM)
    list(APPEND Objects ${Object})
  endforeach()
  set(${OutVar} ${Objects} PARENT_SCOPE)
endfunction()
