/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* One-line error messages for the parsers. */
#ifndef __TSQ_ERRMSG_H
#define __TSQ_ERRMSG_H

#include <stddef.h>

/* Format into err (when given) and return -EINVAL. */
__attribute__((format(printf, 3, 4)))
int tsq_errf(char *err, size_t errlen, const char *fmt, ...);

#endif /* __TSQ_ERRMSG_H */
