/* cmd_ops.c - dvsim ops: the operators of the registry with their variants,
 * dtypes and shape parameters. */
#include "cli.h"
#include "dv_operator.h"

#include <getopt.h>
#include <stdio.h>

void cmd_ops_help(FILE *out)
{
    fprintf(out, "usage: dvsim ops [OPERATOR]\n\n"
                 "Lists the operators `dvsim run OPERATOR` can run: variants and dtypes (the first is the\n"
                 "default) and shape parameters with their defaults and ranges; with a name, also its\n"
                 "tensors and notes.\n");
}

static void print_list(const char *label, const char *const *names)
{
    printf("    %-10s", label);
    for (unsigned i = 0; names[i]; i++)
        printf("%s%s", i ? ", " : "", names[i]);
    printf("\n");
}

static void print_op(const dv_operator *op, bool detail)
{
    printf("%s - %s\n", op->name, op->summary);
    print_list("variants:", op->variants);
    print_list("dtypes:", op->dtypes);
    printf("    %-10s", "shape:");
    for (unsigned i = 0; op->params[i].name; i++)
        printf("%s%s=%llu", i ? ", " : "", op->params[i].name, (unsigned long long)op->params[i].def);
    printf("\n");
    if (!detail)
        return;
    printf("    %-10s%s\n", "tensors:", op->tensors);
    for (unsigned i = 0; op->params[i].name; i++)
        printf("    %-10s%s: %s, %llu..%llu (default %llu)\n", i ? "" : "params:", op->params[i].name,
               op->params[i].doc, (unsigned long long)op->params[i].min,
               (unsigned long long)op->params[i].max, (unsigned long long)op->params[i].def);
    printf("    %-10s%s\n", "notes:", op->notes);
}

int cmd_ops(int argc, char **argv)
{
    static const struct option longopts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    const char *name = NULL;
    cli_getopt g;
    cli_getopt_init(&g, "ops", argc, argv, "h", longopts, false);
    for (int c; (c = cli_getopt_next(&g)) != -1;) {
        switch (c) {
        case 'h': cmd_ops_help(stdout); return 0;
        case CLI_ARG:
            if (name)
                return cli_usage_error("ops", "one operator at a time");
            name = g.arg;
            break;
        default: return EXIT_USAGE;
        }
    }
    if (name) {
        const dv_operator *op = dv_operator_find(name);
        if (!op)
            return cli_usage_error("ops", "no operator '%s' (dvsim ops lists them)", name);
        print_op(op, true);
        return 0;
    }
    for (unsigned i = 0; i < dv_operator_count(); i++) {
        print_op(dv_operator_at(i), false);
        printf("\n");
    }
    printf("Run one with: dvsim run OPERATOR [--variant V] [--dtype T] [--shape K=V,...] [--chip C] [--seed "
           "S]\n");
    return 0;
}
