#include <vips/vips.h>
// mallopt(M_ARENA_MAX) and malloc_trim: glibc heap tuning for libvips' many worker threads (VipsRuntime).
#include <malloc.h>
