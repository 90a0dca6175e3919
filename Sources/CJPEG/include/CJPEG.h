#ifndef CJPEG_ENCODE_H
#define CJPEG_ENCODE_H

#include <stddef.h>

// libjpeg (libjpeg-turbo, libvips' own JPEG codec) for the final encode of image compress: libvips'
// jpegsave offers no choice of progressive scan script. The encoder is in encode.c, where libjpeg's
// error_exit may longjmp across its frames.

// A progressive JPEG of 8-bit pixels (1 band grey, or 3 bands sRGB; rows `stride` bytes apart) with
// optimized Huffman tables and this scan script: DC; luma AC at half precision; each chroma's AC;
// luma's last bit. Chroma is subsampled 2x2 when `subsample`. Returns 0 and a malloc'd `*out` of
// `*out_size` bytes (the caller frees it), or 1 with libjpeg's message in `message`.
int sxkit_jpeg_encode_progressive(const unsigned char *pixels, int width, int height, int bands,
                                  size_t stride, int quality, int subsample,
                                  unsigned char **out, unsigned long *out_size,
                                  char *message, size_t message_size);

#endif
