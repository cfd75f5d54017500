/* Looks up the driver's entry points the ways the CUDA runtime and other
   programs do, and prints which object each answer lives in, then launches
   through what it found. Run with the fake libcuda.so.1 first in
   LD_LIBRARY_PATH, with and without libbaton_preload.so in LD_PRELOAD.

   probe                       lookups and one launch per entry point
   probe [--load LIB] KERNEL... dlopens LIB (as a program loads a library of
                               kernels), then one cuLaunchKernel per kernel
                               name (the fake's CUfunction is the name), then
                               prints the fake's launch count (and with
                               FAKE_CUDA_STATS=1 how ends were written) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef CUresult (*GetProcV2)(const char *, void **, int, unsigned long long,
                              int *);
typedef CUresult (*GetProcV1)(const char *, void **, int, unsigned long long);
typedef CUresult (*LaunchKernel)(void *, unsigned, unsigned, unsigned,
                                 unsigned, unsigned, unsigned, unsigned,
                                 void *, void **, void **);
typedef CUresult (*LaunchCooperative)(void *, unsigned, unsigned, unsigned,
                                      unsigned, unsigned, unsigned, unsigned,
                                      void *, void **);
typedef CUresult (*GraphLaunch)(void *, void *);
typedef CUresult (*ModuleLoadData)(void **, const void *);
struct LaunchAttr {
  unsigned Id;
  char Pad[4];
  union {
    char Bytes[64];
    int Cooperative;
  } Value;
};
struct LaunchConfig {
  unsigned GX, GY, GZ, BX, BY, BZ, Shm;
  void *Stream;
  struct LaunchAttr *Attrs;
  unsigned NumAttrs;
};
typedef CUresult (*LaunchKernelEx)(const struct LaunchConfig *, void *,
                                   void **, void **);

void *next_launch_kernel(void);

static const char *objectOf(void *F) {
  Dl_info Info;
  if (!F)
    return "(null)";
  if (!dladdr(F, &Info) || !Info.dli_fname)
    return "?";
  const char *Slash = strrchr(Info.dli_fname, '/');
  return Slash ? Slash + 1 : Info.dli_fname;
}

static const char *(*LastEntry)(void);
static unsigned (*LastGrid)(void);

/* What a launch returned and what reached the fake driver. */
static void report(const char *What, CUresult R) {
  printf("%s: %d -> %s grid %u\n", What, R, LastEntry(), LastGrid());
}

static void *procAddress(GetProcV2 Get, const char *Symbol, int Version,
                         unsigned long long Flags) {
  void *F = NULL;
  int Status = -1;
  if (Get(Symbol, &F, Version, Flags, &Status) != 0)
    return NULL;
  return F;
}

static int launchKernels(LaunchKernel Launch, int Count, char **Names) {
  float Data[4];
  void *Pointer = Data;
  void *Params[] = {&Pointer};
  for (int I = 0; I < Count; ++I) {
    CUresult R = Launch(Names[I], 3, 1, 1, 32, 1, 1, 0, NULL, Params, NULL);
    printf("launch %s: %d\n", Names[I], R);
  }
  void *Fake = dlopen("libcuda.so.1", RTLD_NOW);
  int (*Launches)(void) = (int (*)(void))dlsym(Fake, "fake_launches");
  printf("fake launches: %d\n", Launches());
  const char *Stats = getenv("FAKE_CUDA_STATS");
  if (Stats && strcmp(Stats, "1") == 0)
    printf("fake ends: %s\n",
           ((const char *(*)(void))dlsym(Fake, "fake_end_stats"))());
  return 0;
}

int main(int argc, char **argv) {
  /* In order with the interposer's reports on stderr. */
  setvbuf(stdout, NULL, _IONBF, 0);
  /* The probe links the fake driver, so that it is in the global scope
     after libnext.so; the runtime's own dlopen is RTLD_LOCAL. */
  void *Cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!Cuda) {
    printf("no libcuda.so.1: %s\n", dlerror());
    return 1;
  }
  /* The CUDA runtime's first step. */
  GetProcV2 Get = (GetProcV2)dlsym(Cuda, "cuGetProcAddress_v2");
  printf("dlsym(libcuda, cuGetProcAddress_v2): %s\n", objectOf((void *)Get));
  LaunchKernel Launch = (LaunchKernel)procAddress(Get, "cuLaunchKernel", 4000, 0);
  if (argc > 2 && strcmp(argv[1], "--load") == 0) {
    if (!dlopen(argv[2], RTLD_NOW)) {
      printf("cannot load %s: %s\n", argv[2], dlerror());
      return 1;
    }
    argc -= 2;
    argv += 2;
  }
  if (argc > 1)
    return launchKernels(Launch, argc - 1, argv + 1);

  void *V2 = procAddress(Get, "cuGetProcAddress", 12000, 0);
  void *V1 = procAddress(Get, "cuGetProcAddress", 11030, 0);
  printf("cuGetProcAddress(cuGetProcAddress, 12000): %s\n", objectOf(V2));
  printf("cuGetProcAddress(cuGetProcAddress, 11030): %s, %s\n", objectOf(V1),
         V1 != V2 ? "another function" : "the same function");
  /* The runtime looks everything else up through what it got back. */
  Get = (GetProcV2)V2;
  void *LaunchPtsz = procAddress(Get, "cuLaunchKernel", 7000, 2);
  printf("cuGetProcAddress(cuLaunchKernel): %s\n", objectOf((void *)Launch));
  printf("cuGetProcAddress(cuLaunchKernel, per-thread): %s, %s\n",
         objectOf(LaunchPtsz),
         LaunchPtsz != (void *)Launch ? "another function" : "the same function");
  LaunchKernelEx Ex = (LaunchKernelEx)procAddress(Get, "cuLaunchKernelEx", 11060, 0);
  printf("cuGetProcAddress(cuLaunchKernelEx): %s\n", objectOf((void *)Ex));
  LaunchCooperative Coop = (LaunchCooperative)procAddress(
      Get, "cuLaunchCooperativeKernel", 9000, 0);
  printf("cuGetProcAddress(cuLaunchCooperativeKernel): %s\n",
         objectOf((void *)Coop));
  GraphLaunch Graph = (GraphLaunch)procAddress(Get, "cuGraphLaunch", 10000, 0);
  printf("cuGetProcAddress(cuGraphLaunch): %s\n", objectOf((void *)Graph));
  printf("cuGetProcAddress(cuMemAlloc): %s\n",
         objectOf(procAddress(Get, "cuMemAlloc", 3020, 0)));
  ModuleLoadData Load =
      (ModuleLoadData)procAddress(Get, "cuModuleLoadData", 2000, 0);
  printf("cuGetProcAddress(cuModuleLoadData): %s\n", objectOf((void *)Load));
  GetProcV1 Old = (GetProcV1)V1;
  void *OldLaunch = NULL;
  Old("cuLaunchKernel", &OldLaunch, 4000, 0);
  printf("cuGetProcAddress v1 (cuLaunchKernel): %s\n", objectOf(OldLaunch));

  /* Other ways to the driver. */
  printf("dlsym(libcuda, cuLaunchKernel): %s\n",
         objectOf(dlsym(Cuda, "cuLaunchKernel")));
  printf("dlsym(libcuda, cuMemAlloc_v2): %s\n",
         objectOf(dlsym(Cuda, "cuMemAlloc_v2")));
  printf("dlsym(RTLD_DEFAULT, cuLaunchKernel): %s\n",
         objectOf(dlsym(RTLD_DEFAULT, "cuLaunchKernel")));
  printf("dlsym(RTLD_NEXT, cuLaunchKernel) from libnext.so: %s\n",
         objectOf(next_launch_kernel()));
  dlerror();
  void *Missing = dlsym(Cuda, "cuNoSuchFunction");
  const char *Error = dlerror();
  printf("dlsym(libcuda, cuNoSuchFunction): %s, dlerror %s\n",
         objectOf(Missing), Error ? "set" : "not set");

  /* Every launch reaches the driver. */
  LastEntry = (const char *(*)(void))dlsym(Cuda, "fake_last_entry");
  LastGrid = (unsigned (*)(void))dlsym(Cuda, "fake_last_grid_x");
  float Data[4];
  void *Pointer = Data;
  void *Params[] = {&Pointer};
  void *Kernel = "_Z5scalePffi";
  report("cuLaunchKernel",
         Launch(Kernel, 7, 1, 1, 32, 1, 1, 0, NULL, Params, NULL));
  report("cuLaunchKernel_ptsz",
         ((LaunchKernel)LaunchPtsz)(Kernel, 8, 1, 1, 32, 1, 1, 0, NULL, Params,
                                    NULL));
  struct LaunchConfig Config = {9, 1, 1, 32, 1, 1, 0, NULL, NULL, 0};
  report("cuLaunchKernelEx", Ex(&Config, Kernel, Params, NULL));
  /* Attribute ids and values as in cuda.h's CUlaunchAttributeID. */
  struct LaunchAttr Attr = {8, {0}, {{0}}}; /* priority: only a hint */
  Config.Attrs = &Attr;
  Config.NumAttrs = 1;
  report("cuLaunchKernelEx with a priority", Ex(&Config, "_Z6hintedPf", Params, NULL));
  Attr.Id = 4; /* a cluster dimension */
  report("cuLaunchKernelEx with a cluster", Ex(&Config, "_Z9clusteredPf", Params, NULL));
  Attr.Id = 2; /* cooperative */
  Attr.Value.Cooperative = 1;
  Config.GX = 10;
  report("cuLaunchKernelEx cooperative", Ex(&Config, Kernel, Params, NULL));
  report("cuLaunchCooperativeKernel",
         Coop(Kernel, 11, 1, 1, 32, 1, 1, 0, NULL, Params));
  report("cuGraphLaunch", Graph((void *)1, NULL));
  report("cuLaunchKernel with extra",
         Launch(Kernel, 12, 1, 1, 32, 1, 1, 0, NULL, NULL, Params));
  void *Module = NULL;
  report("cuModuleLoadData", Load(&Module, "image"));
  return 0;
}
