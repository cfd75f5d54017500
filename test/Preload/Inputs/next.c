/* A library loaded after the interposer that looks up the driver's launch
   function with RTLD_NEXT, as other interposers do: it must get libcuda's
   (the next definition after itself), not the preloaded one's nor its own. */
#define _GNU_SOURCE
#include <dlfcn.h>

int cuLaunchKernel(void) { return 0; }

void *next_launch_kernel(void) { return dlsym(RTLD_NEXT, "cuLaunchKernel"); }
