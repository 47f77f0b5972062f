/* dv_kernel_sources.h - the source text of the built-in kernels: dvs2c
 * embeds every file of a kernel's line table (the .dvs and what it
 * includes) next to its ELF bytes, so listings and profiles of operators
 * show their lines without the source tree. */
#ifndef DV_KERNEL_SOURCES_H
#define DV_KERNEL_SOURCES_H

/* The text of `path` as the line tables name it ("kernels/matmul/db.dvs",
 * "kernels/lib/kernel.inc"), or NULL if no built-in kernel has it. */
const char *dv_kernel_source_text(const char *path);

#endif
