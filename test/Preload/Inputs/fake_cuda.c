/* A stand-in for libcuda.so.1 on machines without a GPU, for the tests of
   the launch interposer. It answers cuGetProcAddress like the driver (its
   own functions for the names it knows, a function failing with
   CUDA_ERROR_NO_DEVICE for the others), counts the launches that reach it,
   and with FAKE_CUDA_LOG=1 prints each cuGetProcAddress query with the
   object that made it, so a test can see who called the driver. A
   CUfunction here is a pointer to the kernel's name.

   For the ends of latency-critical work on streams (lib/Share): with
   FAKE_CUDA_CONTEXT=1 a context is current; host memory registers, its
   device address is its host address; cuStreamWriteValue32 and
   cuMemsetD32Async store at once, or fail with CUDA_ERROR_INVALID_VALUE
   when FAKE_CUDA_MEMOP=invalid or FAKE_CUDA_MEMSET=invalid; events
   complete at once, or never with FAKE_CUDA_EVENTS=pending.
   fake_end_stats() counts what was asked. With FAKE_CUDA_CAPTURING=1 every
   stream is capturing a CUDA graph (cuStreamIsCapturing).

   Link it with -Wl,-Bsymbolic: its own references to its functions must
   not bind to the interposer's exports of the same names. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
enum { CUDA_SUCCESS = 0, CUDA_ERROR_INVALID_VALUE = 1, CUDA_ERROR_NO_DEVICE = 100 };
enum { PER_THREAD_DEFAULT_STREAM = 2 };

static int Launches;
static unsigned LastGridX;
static const char *LastEntry = "";

int fake_launches(void) { return Launches; }
unsigned fake_last_grid_x(void) { return LastGridX; }
const char *fake_last_entry(void) { return LastEntry; }

static CUresult noDevice(void) { return CUDA_ERROR_NO_DEVICE; }

static int StreamWrites, Memsets, EventsCreated, EventRecords;
static char EndStats[128];
const char *fake_end_stats(void) {
  snprintf(EndStats, sizeof(EndStats),
           "stream writes %d, memsets %d, events created %d, records %d",
           StreamWrites, Memsets, EventsCreated, EventRecords);
  return EndStats;
}
static int refused(const char *Variable) {
  const char *V = getenv(Variable);
  return V && strcmp(V, "invalid") == 0;
}
static int FakeContext;
CUresult cuCtxSetCurrent(void *Context) { return CUDA_SUCCESS; }
CUresult cuMemHostRegister_v2(void *P, size_t Size, unsigned Flags) {
  return CUDA_SUCCESS;
}
CUresult cuMemHostUnregister(void *P) { return CUDA_SUCCESS; }
CUresult cuMemHostGetDevicePointer_v2(unsigned long long *D, void *P,
                                      unsigned Flags) {
  *D = (unsigned long long)P;
  return CUDA_SUCCESS;
}
CUresult cuPointerGetAttribute(void *Data, int Attribute,
                               unsigned long long Ptr) {
  *(unsigned *)Data = Attribute == 2 /* MEMORY_TYPE */ ? 1 /* HOST */ : 0;
  return CUDA_SUCCESS;
}
CUresult cuStreamWriteValue32_v2(void *Stream, unsigned long long Addr,
                                 unsigned Value, unsigned Flags) {
  if (refused("FAKE_CUDA_MEMOP"))
    return CUDA_ERROR_INVALID_VALUE;
  ++StreamWrites;
  *(volatile unsigned *)Addr = Value;
  return CUDA_SUCCESS;
}
CUresult cuMemsetD32Async(unsigned long long Addr, unsigned Value, size_t N,
                          void *Stream) {
  if (refused("FAKE_CUDA_MEMSET"))
    return CUDA_ERROR_INVALID_VALUE;
  ++Memsets;
  for (size_t I = 0; I < N; ++I)
    ((volatile unsigned *)Addr)[I] = Value;
  return CUDA_SUCCESS;
}
static int EventStorage;
CUresult cuEventCreate(void **Event, unsigned Flags) {
  ++EventsCreated;
  *Event = &EventStorage;
  return CUDA_SUCCESS;
}
CUresult cuEventRecord(void *Event, void *Stream) {
  ++EventRecords;
  return CUDA_SUCCESS;
}
CUresult cuEventQuery(void *Event) {
  const char *V = getenv("FAKE_CUDA_EVENTS");
  return V && strcmp(V, "pending") == 0 ? 600 /* NOT_READY */ : CUDA_SUCCESS;
}
CUresult cuEventDestroy_v2(void *Event) { return CUDA_SUCCESS; }
CUresult cuStreamIsCapturing(void *Stream, int *Status) {
  const char *V = getenv("FAKE_CUDA_CAPTURING");
  *Status = V && strcmp(V, "1") == 0 ? 1 /* ACTIVE */ : 0 /* NONE */;
  return CUDA_SUCCESS;
}
CUresult cuThreadExchangeStreamCaptureMode(int *Mode) {
  static __thread int ThreadMode; /* GLOBAL */
  int Old = ThreadMode;
  ThreadMode = *Mode;
  *Mode = Old;
  return CUDA_SUCCESS;
}

CUresult cuInit(unsigned Flags) { return CUDA_SUCCESS; }
CUresult cuDriverGetVersion(int *Version) {
  *Version = 13000;
  return CUDA_SUCCESS;
}
CUresult cuCtxGetCurrent(void **Context) {
  const char *V = getenv("FAKE_CUDA_CONTEXT");
  *Context = V && strcmp(V, "1") == 0 ? (void *)&FakeContext : NULL;
  return CUDA_SUCCESS;
}
CUresult cuFuncGetName(const char **Name, void *F) {
  *Name = (const char *)F;
  return CUDA_SUCCESS;
}
/* Every fake kernel takes one pointer. */
CUresult cuFuncGetParamInfo(void *F, size_t Index, size_t *Offset,
                            size_t *Size) {
  if (Index > 0)
    return CUDA_ERROR_INVALID_VALUE;
  *Offset = 0;
  *Size = 8;
  return CUDA_SUCCESS;
}

static CUresult launch(const char *Entry, unsigned GridX) {
  ++Launches;
  LastGridX = GridX;
  LastEntry = Entry;
  return CUDA_SUCCESS;
}
CUresult cuLaunchKernel(void *F, unsigned GX, unsigned GY, unsigned GZ,
                        unsigned BX, unsigned BY, unsigned BZ, unsigned Shm,
                        void *Stream, void **Params, void **Extra) {
  return launch("cuLaunchKernel", GX);
}
CUresult cuLaunchKernel_ptsz(void *F, unsigned GX, unsigned GY, unsigned GZ,
                             unsigned BX, unsigned BY, unsigned BZ,
                             unsigned Shm, void *Stream, void **Params,
                             void **Extra) {
  return launch("cuLaunchKernel_ptsz", GX);
}
struct LaunchConfig {
  unsigned GX, GY, GZ, BX, BY, BZ, Shm;
  void *Stream;
  void *Attrs;
  unsigned NumAttrs;
};
CUresult cuLaunchKernelEx(const struct LaunchConfig *C, void *F, void **Params,
                          void **Extra) {
  return launch("cuLaunchKernelEx", C->GX);
}
CUresult cuLaunchKernelEx_ptsz(const struct LaunchConfig *C, void *F,
                               void **Params, void **Extra) {
  return launch("cuLaunchKernelEx_ptsz", C->GX);
}
CUresult cuLaunchCooperativeKernel(void *F, unsigned GX, unsigned GY,
                                   unsigned GZ, unsigned BX, unsigned BY,
                                   unsigned BZ, unsigned Shm, void *Stream,
                                   void **Params) {
  return launch("cuLaunchCooperativeKernel", GX);
}
CUresult cuLaunchCooperativeKernel_ptsz(void *F, unsigned GX, unsigned GY,
                                        unsigned GZ, unsigned BX, unsigned BY,
                                        unsigned BZ, unsigned Shm,
                                        void *Stream, void **Params) {
  return launch("cuLaunchCooperativeKernel_ptsz", GX);
}
CUresult cuGraphLaunch(void *Graph, void *Stream) {
  return launch("cuGraphLaunch", 0);
}
CUresult cuGraphLaunch_ptsz(void *Graph, void *Stream) {
  return launch("cuGraphLaunch_ptsz", 0);
}
CUresult cuMemAlloc_v2(unsigned long long *Ptr, size_t Size) {
  return CUDA_ERROR_NO_DEVICE;
}
/* A module load: recorded as the last entry, counted as no launch. */
CUresult cuModuleLoadData(void **Module, const void *Image) {
  *Module = (void *)Image;
  LastGridX = 0;
  LastEntry = "cuModuleLoadData";
  return CUDA_SUCCESS;
}

CUresult cuGetProcAddress_v2(const char *Symbol, void **Pfn, int Version,
                             unsigned long long Flags, int *Status);
CUresult cuGetProcAddress(const char *Symbol, void **Pfn, int Version,
                          unsigned long long Flags);

static void logQuery(const char *Entry, const char *Symbol, void *Caller) {
  const char *Log = getenv("FAKE_CUDA_LOG");
  if (!Log || strcmp(Log, "1") != 0)
    return;
  Dl_info Info;
  const char *From = "?";
  if (dladdr(Caller, &Info) && Info.dli_fname) {
    From = strrchr(Info.dli_fname, '/');
    From = From ? From + 1 : Info.dli_fname;
  }
  fprintf(stderr, "fake: %s(%s) from %s\n", Entry, Symbol, From);
}

static void *lookup(const char *Symbol, int Version, unsigned long long Flags) {
  int PerThread = (Flags & PER_THREAD_DEFAULT_STREAM) != 0;
  struct {
    const char *Name;
    void *Legacy, *PerThread;
  } Table[] = {
      {"cuInit", (void *)cuInit, (void *)cuInit},
      {"cuDriverGetVersion", (void *)cuDriverGetVersion,
       (void *)cuDriverGetVersion},
      {"cuCtxGetCurrent", (void *)cuCtxGetCurrent, (void *)cuCtxGetCurrent},
      {"cuFuncGetName", (void *)cuFuncGetName, (void *)cuFuncGetName},
      {"cuFuncGetParamInfo", (void *)cuFuncGetParamInfo,
       (void *)cuFuncGetParamInfo},
      {"cuLaunchKernel", (void *)cuLaunchKernel, (void *)cuLaunchKernel_ptsz},
      {"cuLaunchKernelEx", (void *)cuLaunchKernelEx,
       (void *)cuLaunchKernelEx_ptsz},
      {"cuLaunchCooperativeKernel", (void *)cuLaunchCooperativeKernel,
       (void *)cuLaunchCooperativeKernel_ptsz},
      {"cuGraphLaunch", (void *)cuGraphLaunch, (void *)cuGraphLaunch_ptsz},
      {"cuMemAlloc", (void *)cuMemAlloc_v2, (void *)cuMemAlloc_v2},
      {"cuModuleLoadData", (void *)cuModuleLoadData, (void *)cuModuleLoadData},
      {"cuCtxSetCurrent", (void *)cuCtxSetCurrent, (void *)cuCtxSetCurrent},
      {"cuMemHostRegister", (void *)cuMemHostRegister_v2,
       (void *)cuMemHostRegister_v2},
      {"cuMemHostUnregister", (void *)cuMemHostUnregister,
       (void *)cuMemHostUnregister},
      {"cuMemHostGetDevicePointer", (void *)cuMemHostGetDevicePointer_v2,
       (void *)cuMemHostGetDevicePointer_v2},
      {"cuPointerGetAttribute", (void *)cuPointerGetAttribute,
       (void *)cuPointerGetAttribute},
      {"cuStreamWriteValue32", (void *)cuStreamWriteValue32_v2,
       (void *)cuStreamWriteValue32_v2},
      {"cuMemsetD32Async", (void *)cuMemsetD32Async, (void *)cuMemsetD32Async},
      {"cuEventCreate", (void *)cuEventCreate, (void *)cuEventCreate},
      {"cuEventRecord", (void *)cuEventRecord, (void *)cuEventRecord},
      {"cuEventQuery", (void *)cuEventQuery, (void *)cuEventQuery},
      {"cuEventDestroy", (void *)cuEventDestroy_v2, (void *)cuEventDestroy_v2},
      {"cuStreamIsCapturing", (void *)cuStreamIsCapturing,
       (void *)cuStreamIsCapturing},
      {"cuThreadExchangeStreamCaptureMode",
       (void *)cuThreadExchangeStreamCaptureMode,
       (void *)cuThreadExchangeStreamCaptureMode},
  };
  if (strcmp(Symbol, "cuGetProcAddress") == 0)
    return Version >= 12000 ? (void *)cuGetProcAddress_v2
                            : (void *)cuGetProcAddress;
  for (size_t I = 0; I < sizeof(Table) / sizeof(Table[0]); ++I)
    if (strcmp(Table[I].Name, Symbol) == 0)
      return PerThread ? Table[I].PerThread : Table[I].Legacy;
  return (void *)noDevice;
}

CUresult cuGetProcAddress_v2(const char *Symbol, void **Pfn, int Version,
                             unsigned long long Flags, int *Status) {
  logQuery("cuGetProcAddress_v2", Symbol, __builtin_return_address(0));
  *Pfn = lookup(Symbol, Version, Flags);
  if (Status)
    *Status = 0;
  return CUDA_SUCCESS;
}

CUresult cuGetProcAddress(const char *Symbol, void **Pfn, int Version,
                          unsigned long long Flags) {
  logQuery("cuGetProcAddress", Symbol, __builtin_return_address(0));
  *Pfn = lookup(Symbol, Version, Flags);
  return CUDA_SUCCESS;
}
