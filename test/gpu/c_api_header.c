/* Compiles baton.h as C (it is the interface for other languages), and
   references each entry point so that a prototype out of step with the
   definition fails to link. */
#include "baton/baton.h"

int baton_c_header_compiles(void) {
  void *Entries[] = {
      (void *)baton_last_error,        (void *)baton_runtime_create,
      (void *)baton_runtime_destroy,   (void *)baton_module_load_ptx,
      (void *)baton_module_load_image, (void *)baton_module_load_file,
      (void *)baton_module_destroy,    (void *)baton_kernel_get,
      (void *)baton_kernel_has_variant, (void *)baton_kernel_num_params,
      (void *)baton_kernel_destroy,    (void *)baton_launch_kernel,
      (void *)baton_launch_pause,      (void *)baton_launch_resume,
      (void *)baton_launch_wait,       (void *)baton_launch_progress,
      (void *)baton_launch_destroy};
  int All = 1;
  for (unsigned I = 0; I < sizeof(Entries) / sizeof(Entries[0]); ++I)
    All &= Entries[I] != 0;
  return All;
}
