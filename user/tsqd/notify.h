/* SPDX-License-Identifier: GPL-2.0 */
/* systemd's readiness protocol, without libsystemd. */
#ifndef __TSQD_NOTIFY_H
#define __TSQD_NOTIFY_H

/* Send "READY=1", "RELOADING=1\nMONOTONIC_USEC=...", "STATUS=..." to
 * $NOTIFY_SOCKET; nothing if it is unset. Returns 0 or -errno.
 */
int notify(const char *msg);
int notify_reloading(void);

#endif
