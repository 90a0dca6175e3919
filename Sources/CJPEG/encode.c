#include "CJPEG.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <jpeglib.h>

// libjpeg (libjpeg-turbo) for the final encode of image compress: libvips' jpegsave offers no choice of
// progressive scan script, and libjpeg reports errors by calling error_exit, which must not return,
// so the one call that drives it lives here, in C, where setjmp/longjmp may cross its frames.

typedef struct {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
} sxkit_jpeg_failure;

static void sxkit_jpeg_error_exit(j_common_ptr info) {
    sxkit_jpeg_failure *failure = (sxkit_jpeg_failure *)info->err;
    failure->manager.format_message(info, failure->message);
    longjmp(failure->jump, 1);
}

static void sxkit_jpeg_silent(j_common_ptr info) { (void)info; }

// A progressive JPEG of 8-bit pixels (1 band grey, or 3 bands sRGB; rows `stride` bytes apart) with
// optimized Huffman tables and this scan script: DC; luma AC at half precision; each chroma's AC;
// luma's last bit. Chroma is subsampled 2x2 when `subsample`. Returns 0 and a malloc'd `*out` of
// `*out_size` bytes (the caller frees it), or 1 with libjpeg's message in `message`.
int sxkit_jpeg_encode_progressive(const unsigned char *pixels, int width, int height, int bands,
                                                size_t stride, int quality, int subsample,
                                                unsigned char **out, unsigned long *out_size,
                                                char *message, size_t message_size) {
    struct jpeg_compress_struct info;
    sxkit_jpeg_failure failure;
    static const jpeg_scan_info colour_scans[5] = {
        {3, {0, 1, 2}, 0, 0, 0, 0},
        {1, {0}, 1, 63, 0, 1},
        {1, {2}, 1, 63, 0, 0},
        {1, {1}, 1, 63, 0, 0},
        {1, {0}, 1, 63, 1, 0},
    };
    static const jpeg_scan_info grey_scans[3] = {
        {1, {0}, 0, 0, 0, 0},
        {1, {0}, 1, 63, 0, 1},
        {1, {0}, 1, 63, 1, 0},
    };
    *out = NULL;
    *out_size = 0;
    memset(&info, 0, sizeof info);
    info.err = jpeg_std_error(&failure.manager);
    failure.manager.error_exit = sxkit_jpeg_error_exit;
    failure.manager.output_message = sxkit_jpeg_silent;
    failure.message[0] = 0;
    if (setjmp(failure.jump)) {
        snprintf(message, message_size, "%s", failure.message);
        jpeg_destroy_compress(&info);
        free(*out);
        *out = NULL;
        *out_size = 0;
        return 1;
    }
    jpeg_create_compress(&info);
    jpeg_mem_dest(&info, out, out_size);
    info.image_width = (JDIMENSION)width;
    info.image_height = (JDIMENSION)height;
    info.input_components = bands;
    info.in_color_space = bands == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&info);
    jpeg_set_quality(&info, quality, TRUE);
    info.write_JFIF_header = FALSE;  // like libvips' strip: nothing but the image
    if (bands == 3 && !subsample) {
        info.comp_info[0].h_samp_factor = 1;
        info.comp_info[0].v_samp_factor = 1;
    }
    info.scan_info = bands == 1 ? grey_scans : colour_scans;
    info.num_scans = bands == 1 ? 3 : 5;
    info.optimize_coding = TRUE;
    jpeg_start_compress(&info, TRUE);
    while (info.next_scanline < info.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)info.next_scanline * stride);
        jpeg_write_scanlines(&info, &row, 1);
    }
    jpeg_finish_compress(&info);
    jpeg_destroy_compress(&info);
    return 0;
}
