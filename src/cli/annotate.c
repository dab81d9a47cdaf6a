/* plumb annotate: placeholder until annotation lands. */
#include "cli/cli.h"

int cmd_annotate(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cli_error("annotate: not built yet");
	return EXIT_BAD_INPUT;
}
