/* data_path.h: where the files that hold tensors are looked up: the
 * constants' .npy files (ir(5), DESIGN.md) and ONNX external data, both
 * named relative to a folder that the user's input implies. */
#ifndef IRPIPE_DATA_PATH_H
#define IRPIPE_DATA_PATH_H
#include <stdbool.h>

/* Whether path stays inside the folder it is relative to: not empty, not
 * absolute, and no component "..". */
bool data_path_inside(const char *path);
/* The folder of the file at path, malloc'd: "/" for a file at the root;
 * NULL when path names no folder (a bare file name, the current one). */
char *data_path_folder(const char *path);
/* The path of a data file: an absolute path as it is; else under data_dir
 * if given, else beside input_path if that names a folder, else the
 * current folder.  Malloc'd. */
char *data_path_resolve(const char *path, const char *data_dir, const char *input_path);

#endif
