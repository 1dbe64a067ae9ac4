/* SPDX-License-Identifier: GPL-2.0 */
/* A pod, as the API describes it, and the cgroup and drop-in it gets. */
#ifndef __KUBE_POD_H
#define __KUBE_POD_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>

enum kube_driver {
	KUBE_DRIVER_SYSTEMD,	/* kubepods-burstable-pod<uid_>.slice */
	KUBE_DRIVER_CGROUPFS,	/* /kubepods/burstable/pod<uid> */
};

enum kube_qos {
	KUBE_QOS_UNKNOWN,
	KUBE_QOS_GUARANTEED,
	KUBE_QOS_BURSTABLE,
	KUBE_QOS_BESTEFFORT,
};

#define KUBE_UID_MAX	64	/* a UUID is 36, a static pod's hash 32 */
#define KUBE_NAME_MAX	253	/* a DNS-1123 subdomain */
#define KUBE_POLICY_MAX	256	/* bytes of an annotation's value read */
#define KUBE_MIRROR_ANNOTATION	"kubernetes.io/config.mirror"
#define KUBE_SOURCE_ANNOTATION	"kubernetes.io/config.source"

struct kube_pod {
	/* The uid in the pod's cgroup name: a mirror pod's is its static
	 * pod's (the config.mirror annotation), not the API object's; but
	 * only for a static pod of this node (see kube_pod_read()).
	 */
	char uid[KUBE_UID_MAX + 1];
	char ns[KUBE_NAME_MAX + 1], name[KUBE_NAME_MAX + 1];	/* "" if not DNS names */
	const char *node;	/* spec.nodeName, "" if none; borrowed */
	const char *policy;	/* the policy annotation, NULL if none; borrowed */
	enum kube_qos qos;
	bool terminal;		/* Succeeded or Failed: the kubelet removed its cgroup */
};

/* A uid that may stand in a cgroup and a file name: [0-9a-f-], 1 to 64. */
bool kube_uid_valid(const char *uid);

/*
 * Read the fields above from a Pod object; policy from the annotation
 * key given. Only a missing or invalid uid is an error (-EINVAL, err
 * set): without it the pod cannot be told apart from another.
 *
 * Any user who may create a pod may write any annotation, the mirror
 * one included (the API server only wants spec.nodeName set with it).
 * So the mirror uid counts only where the kubelet of node would have
 * written it: the pod's own config.source is "file" or "http" (a static
 * pod) and its spec.nodeName is node. Elsewhere the pod's own uid names
 * it, and it cannot reach another pod's cgroup or drop-in. A mirror uid
 * that counts must be the kubelet's hash (32 hex digits), or the pod is
 * an error: a forged config.source cannot reach a pod with a UUID.
 */
int kube_pod_read(struct json_object *obj, const char *annotation, const char *node,
		  struct kube_pod *p, char *err, size_t errlen);

/* "ns/name" for messages, or the uid when the names are not valid. */
const char *kube_pod_label(const struct kube_pod *p, char *buf, size_t len);

/*
 * The pod's cgroup as a tsq.conf target, the way the kubelet names it:
 *   systemd:  kubepods-burstable-pod<uid, '-' as '_'>.slice
 *   cgroupfs: /kubepods/burstable/pod<uid>
 * Guaranteed pods have no QoS level: kubepods-pod<uid_>.slice,
 * /kubepods/pod<uid>. 0, or -EINVAL (unknown QoS class) with err set.
 */
int kube_pod_target(const struct kube_pod *p, enum kube_driver driver, char *buf,
		    size_t len, char *err, size_t errlen);

/*
 * The drop-in file for a pod with a policy annotation: a comment naming
 * the pod, then "TARGET POLICY" with the policy in the canonical form,
 * checked with tsq.conf's own parser against mount. 0, or -EINVAL with
 * one line in err (a bad value, an unknown QoS class); buf is then
 * unchanged.
 */
#define KUBE_DROPIN_MAX	1024
int kube_pod_dropin(const struct kube_pod *p, enum kube_driver driver, const char *mount,
		    const char *annotation, char *buf, size_t len, char *err, size_t errlen);

#endif
