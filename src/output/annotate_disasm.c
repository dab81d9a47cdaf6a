/* plumb annotate --disasm: per-instruction costs of the listed functions. */
#include "output/annotate_internal.h"

int ann_disasm(ann_ctx *c, plumb_error *err)
{
	(void)c;
	(void)err;
	return 0;
}
