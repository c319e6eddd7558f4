/*
 * dfc_info.h - the parts of dfc_info kept in files of their own.
 */
#ifndef DFC_INFO_H
#define DFC_INFO_H

/* Prints the GPU section (dfc_info_gpu.c): human-readable, or key:value lines. */
void dfc_info_gpus(int parsable);

#endif /* DFC_INFO_H */
