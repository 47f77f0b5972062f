/* model_data.c - a model's test data folder and its seeded inputs. */
#include "model_data.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

bool model_data_dir(const char *model, const char *given, char *dir, size_t len)
{
    if (given) {
        snprintf(dir, len, "%s", given);
        return true;
    }
    const char *slash = strrchr(model, '/');
    snprintf(dir, len, "%.*stest_data_set_0", slash ? (int)(slash - model + 1) : 0, model);
    struct stat st;
    return stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Splitmix64: seeded inputs without a global generator. */
void model_fill_uniform(double *data, int64_t n, uint64_t *seed)
{
    for (int64_t e = 0; e < n; e++) {
        uint64_t z = (*seed += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        data[e] = (double)(z >> 11) / 9007199254740992.0 * 2 - 1;
    }
}
