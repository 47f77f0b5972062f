/* cmd_diff.c - placeholder replaced below */
#include "cli.h"
void cmd_diff_help(FILE *out) { fputs("usage: dvsim diff A B\n", out); }
int cmd_diff(int argc, char **argv) { (void)argc; (void)argv; return 64; }
