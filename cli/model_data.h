/* model_data.h - the inputs a model runs on, for dvsim compile --ref and
 * dvsim graph: its test data folder, or seeded values (one generator, so
 * both commands draw the same inputs for the same seed). */
#ifndef DV_MODEL_DATA_H
#define DV_MODEL_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The test data folder: given (--data) if not NULL, else MODEL's sibling
 * test_data_set_0 (as the ONNX backend tests lay it out); true if it is a
 * folder (given is taken as is). */
bool model_data_dir(const char *model, const char *given, char *dir, size_t len);
/* n values uniform in [-1, 1) from splitmix64 state *seed (advanced). */
void model_fill_uniform(double *data, int64_t n, uint64_t *seed);

#endif
