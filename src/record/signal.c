/* plumb record --sampler=signal: runs the command with libplumb-sampler.so
 * preloaded and reads what it wrote (stub until the reader lands). */
#include "plumb/record.h"

int plumb_record_signal(const plumb_record_opts *o, plumb_rec_data *d, plumb_record_result *res,
			plumb_error *err)
{
	(void)o;
	(void)d;
	if (res)
		res->wait_status = -1;
	return plumb_fail(err, PLUMB_ERR_UNSUPPORTED, "the signal sampler is not built yet");
}
