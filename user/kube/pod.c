// SPDX-License-Identifier: GPL-2.0
/* From a Pod object to the line tsqd reads.
 *
 * Everything here comes from the API server, and through it from whoever
 * may create pods: the uid names a cgroup and a file, the annotation
 * becomes a policy line. So the uid must be hex and dashes, the names
 * DNS names before they appear in a comment, the annotation words that
 * tsq's policy parser accepts, written back in its canonical form; the
 * whole file must then parse as tsq.conf, with the same target checks
 * tsqctl and tsqd apply. A newline in a value can never start a line.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "jsonstream.h"
#include "pod.h"
#include "conffile.h"
#include "errmsg.h"
#include "policy.h"
#include "quote.h"

bool kube_uid_valid(const char *uid)
{
	size_t n = uid ? strlen(uid) : 0;

	if (!n || n > KUBE_UID_MAX)
		return false;
	return strspn(uid, "0123456789abcdef-") == n;
}

/* A DNS-1123 subdomain's characters: what namespaces and pod names are. */
static bool dns_name(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	return n && n <= KUBE_NAME_MAX &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-.") == n;
}

static enum kube_qos qos_class(const char *s)
{
	if (!s)
		return KUBE_QOS_UNKNOWN;
	if (!strcmp(s, "Guaranteed"))
		return KUBE_QOS_GUARANTEED;
	if (!strcmp(s, "Burstable"))
		return KUBE_QOS_BURSTABLE;
	if (!strcmp(s, "BestEffort"))
		return KUBE_QOS_BESTEFFORT;
	return KUBE_QOS_UNKNOWN;
}

/* Whether the mirror annotation names this pod's cgroup: see pod.h. */
static bool static_pod_of(struct json_object *ann, const char *pod_node, const char *node)
{
	const char *source = json_get_str(ann, KUBE_SOURCE_ANNOTATION);

	return source && (!strcmp(source, "file") || !strcmp(source, "http")) &&
	       pod_node && node && !strcmp(pod_node, node);
}

int kube_pod_read(struct json_object *obj, const char *annotation, const char *node,
		  struct kube_pod *p, char *err, size_t errlen)
{
	struct json_object *meta = json_get(obj, "metadata");
	struct json_object *ann = json_get(meta, "annotations"), *status = json_get(obj, "status");
	const char *uid = json_get_str(meta, "uid");
	const char *mirror = json_get_str(ann, KUBE_MIRROR_ANNOTATION);
	const char *ns = json_get_str(meta, "namespace"), *name = json_get_str(meta, "name");
	const char *phase = json_get_str(status, "phase");
	const char *pod_node = json_get_str(json_get(obj, "spec"), "nodeName");
	char q[TSQ_QUOTE_BUFSZ];

	memset(p, 0, sizeof(*p));
	if (!json_object_is_type(obj, json_type_object) || !meta)
		return tsq_errf(err, errlen, "an object without metadata");
	if (mirror && !static_pod_of(ann, pod_node, node))
		mirror = NULL;
	/* The kubelet names a static pod by the MD5 of its manifest: a
	 * tenant who forges config.source still cannot name a pod the API
	 * server made (a UUID).
	 */
	if (mirror && (strlen(mirror) != 32 || strspn(mirror, "0123456789abcdef") != 32))
		return tsq_errf(err, errlen, "%s \"%s\" is not a static pod's uid (32 hex digits)",
				KUBE_MIRROR_ANNOTATION, tsq_quote(q, sizeof(q), mirror));
	if (mirror)
		uid = mirror;
	if (!kube_uid_valid(uid))
		return tsq_errf(err, errlen, "uid \"%s\" is not a pod uid (hex digits and '-', "
				"at most %d)", tsq_quote(q, sizeof(q), uid ? uid : "(none)"),
				KUBE_UID_MAX);
	strcpy(p->uid, uid);
	if (dns_name(ns) && dns_name(name)) {
		strcpy(p->ns, ns);
		strcpy(p->name, name);
	}
	p->node = pod_node ?: "";
	p->policy = json_get_str(ann, annotation);
	p->qos = qos_class(json_get_str(status, "qosClass"));
	p->terminal = phase && (!strcmp(phase, "Succeeded") || !strcmp(phase, "Failed"));
	return 0;
}

const char *kube_pod_label(const struct kube_pod *p, char *buf, size_t len)
{
	if (p->ns[0])
		snprintf(buf, len, "%s/%s", p->ns, p->name);
	else
		snprintf(buf, len, "uid %s", p->uid);
	return buf;
}

static const char *const qos_level[] = {
	[KUBE_QOS_GUARANTEED] = "",
	[KUBE_QOS_BURSTABLE] = "burstable",
	[KUBE_QOS_BESTEFFORT] = "besteffort",
};

int kube_pod_target(const struct kube_pod *p, enum kube_driver driver, char *buf,
		    size_t len, char *err, size_t errlen)
{
	const char *lvl, *sep;
	char uid[KUBE_UID_MAX + 1];
	int n;

	if (p->qos == KUBE_QOS_UNKNOWN)
		return tsq_errf(err, errlen, "no QoS class known (status.qosClass): "
				"its cgroup cannot be named");
	lvl = qos_level[p->qos];
	sep = *lvl ? (driver == KUBE_DRIVER_SYSTEMD ? "-" : "/") : "";
	if (driver == KUBE_DRIVER_CGROUPFS) {
		n = snprintf(buf, len, "/kubepods/%s%spod%s", lvl, sep, p->uid);
	} else {
		/* '-' separates slice levels in a systemd name: the kubelet
		 * writes the uid's dashes as '_'.
		 */
		strcpy(uid, p->uid);
		for (char *c = uid; *c; c++)
			if (*c == '-')
				*c = '_';
		n = snprintf(buf, len, "kubepods-%s%spod%s.slice", lvl, sep, uid);
	}
	if (n < 0 || (size_t)n >= len)
		return tsq_errf(err, errlen, "its cgroup's name is too long");
	return 0;
}

/* The annotation's words through tsq's policy parser, back in its
 * canonical form ("budget 65536" -> "budget 64k").
 */
static int parse_policy(const char *value, char *out, size_t outlen, char *err,
			size_t errlen)
{
	char buf[KUBE_POLICY_MAX + 1], *argv[KUBE_POLICY_MAX / 2 + 1], *s, q[TSQ_QUOTE_BUFSZ];
	struct tsq_policy pol;
	int argc = 0;

	if (strlen(value) > KUBE_POLICY_MAX)
		return tsq_errf(err, errlen, "longer than %d bytes", KUBE_POLICY_MAX);
	for (s = (char *)value; *s; s++)
		if ((unsigned char)*s < 0x20 && *s != ' ' && *s != '\t')
			return tsq_errf(err, errlen, "\"%s\" has a control character",
					tsq_quote(q, sizeof(q), value));
	strcpy(buf, value);
	for (s = strtok(buf, " \t"); s; s = strtok(NULL, " \t"))
		argv[argc++] = s;
	if (tsq_policy_parse_args(argc, argv, &pol, err, errlen))
		return -EINVAL;
	if (tsq_policy_format(&pol, out, outlen) < 0)
		return tsq_errf(err, errlen, "the policy does not fit");
	return 0;
}

int kube_pod_dropin(const struct kube_pod *p, enum kube_driver driver, const char *mount,
		    const char *annotation, char *buf, size_t len, char *err, size_t errlen)
{
	char target[KUBE_UID_MAX + 64], pol[TSQ_POLICY_FMT_BUFSZ], who[2 * KUBE_NAME_MAX + 8];
	char text[KUBE_DROPIN_MAX], msg[512];
	struct tsq_conf conf;
	int n, ret;

	if (!p->policy)
		return tsq_errf(err, errlen, "no %s annotation", annotation);
	if (parse_policy(p->policy, pol, sizeof(pol), msg, sizeof(msg)))
		return tsq_errf(err, errlen, "annotation %s: %s", annotation, msg);
	if (kube_pod_target(p, driver, target, sizeof(target), err, errlen))
		return -EINVAL;
	n = snprintf(text, sizeof(text), "# tsq-kube: pod %s, annotation %s\n%s %s\n",
		     kube_pod_label(p, who, sizeof(who)), annotation, target, pol);
	if (n < 0 || (size_t)n >= sizeof(text) || (size_t)n >= len)
		return tsq_errf(err, errlen, "the drop-in does not fit");
	/* What tsqd will read, read the way tsqd reads it. */
	tsq_conf_init(&conf, mount);
	ret = tsq_conf_parse_buf(&conf, "drop-in", text, n, msg, sizeof(msg));
	if (!ret && conf.nr != 1)
		ret = tsq_errf(msg, sizeof(msg), "%zu entries, not 1", conf.nr);
	tsq_conf_free(&conf);
	if (ret)
		return tsq_errf(err, errlen, "refused by the tsq.conf parser: %s", msg);
	memcpy(buf, text, n + 1);
	return 0;
}
