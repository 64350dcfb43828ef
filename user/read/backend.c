/* backend.c - what every reader backend checks the same way. */
#include "read/backend.h"
#include "base/err.h"

int read_req__check(const struct read_req *req, struct gh_err *err)
{
	if (req->pid <= 0 || req->nstk_max > GH_MAX_STACK ||
	    req->rec_bytes > GH_MAX_REC_BYTES || req->rec_bytes % 8 ||
	    !req->mbuckets)
		return err_set(err, GH_E_FAILED,
			       "invalid read request for process %d", req->pid);
	return 0;
}
