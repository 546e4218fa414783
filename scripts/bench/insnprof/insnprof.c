// SPDX-License-Identifier: GPL-2.0
/*
 * insnprof: a QEMU TCG plugin counting the guest instructions executed
 * per translation-block start address, inside windows the guest marks.
 * scripts/bench/insnprof.sh loads it and symbolizes what it writes.
 *
 *	qemu-system-x86_64 ... -plugin file=insnprof.so,start=HEX,end=HEX,out=PATH
 *
 * Every translated block gets an inline "count += its instructions" on
 * its start address's counter: one counter per address, shared by all
 * retranslations of it (open-addressing hash table of counters that
 * never move, so the inline op's pointer stays valid). Counting runs all
 * the time; the window is where it is read:
 *
 *   - a block starting at START (the guest ran "insnprof-mark start")
 *     zeroes every counter;
 *   - a block starting at END writes PATH.N (N = 1, 2, ... per window):
 *     "ADDR COUNT" lines in hex and decimal, one per nonzero counter,
 *     after a "# total INSNS" line.
 *
 * START and END are two user-space addresses in insnprof-mark, a static
 * non-PIE program linked at an address no other guest program uses, so
 * nothing but that program marks, and the kernel's layout (KASLR, modules)
 * does not matter.
 *
 * A block is counted whole when it starts: one that faults half way
 * (a page fault, say) counts the instructions it did not run. Counters
 * are not atomic: meant for the one vCPU of an -icount guest.
 *
 * The plugin API (version 1, QEMU 7.2) is declared here: Debian ships no
 * qemu-plugin.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- The subset of QEMU 7.2's plugin API this uses ---- */

#define INSNPROF_EXPORT __attribute__((visibility("default")))

typedef uint64_t qemu_plugin_id_t;

typedef struct {
	const char *target_name;
	struct {
		int min;
		int cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus;
			int max_vcpus;
		} system;
	};
} qemu_info_t;

struct qemu_plugin_tb;

enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS,
	QEMU_PLUGIN_CB_R_REGS,
	QEMU_PLUGIN_CB_RW_REGS,
};

enum qemu_plugin_op {
	QEMU_PLUGIN_INLINE_ADD_U64,
};

typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index,
					    void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
					  qemu_plugin_vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags,
					  void *userdata);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
void qemu_plugin_outs(const char *string);

INSNPROF_EXPORT int qemu_plugin_version = 1;
INSNPROF_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					const qemu_info_t *info,
					int argc, char **argv);

/* ---- The counters ---- */

struct counter {
	uint64_t addr;
	uint64_t count;
};

/* Counters live in chunks that never move; the table only points. */
#define CHUNK_COUNTERS 4096

struct chunk {
	struct chunk *next;
	size_t used;
	struct counter c[CHUNK_COUNTERS];
};

static struct {
	pthread_mutex_t lock;	/* translation vs marks; protects all below */
	struct counter **slots;	/* open addressing, a power of two */
	size_t nslots, nused;
	struct chunk *chunks;
	uint64_t start, end;
	char *out;
	unsigned int windows;	/* profiles written so far */
	bool open;		/* a start was seen since the last end */
} prof = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void say(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	qemu_plugin_outs(line);
}

static size_t slot_of(uint64_t addr, size_t nslots)
{
	/* Fibonacci hashing: block addresses share their low bits' habits. */
	return (size_t)((addr * 0x9e3779b97f4a7c15ull) >> 20) & (nslots - 1);
}

static bool grow_locked(void)
{
	size_t n = prof.nslots ? prof.nslots * 2 : 1 << 16, i, j;
	struct counter **slots = calloc(n, sizeof(*slots));

	if (!slots)
		return false;
	for (i = 0; i < prof.nslots; i++) {
		if (!prof.slots[i])
			continue;
		for (j = slot_of(prof.slots[i]->addr, n); slots[j];
		     j = (j + 1) & (n - 1))
			;
		slots[j] = prof.slots[i];
	}
	free(prof.slots);
	prof.slots = slots;
	prof.nslots = n;
	return true;
}

static struct counter *counter_get_locked(uint64_t addr)
{
	struct chunk *ch;
	struct counter *c;
	size_t i;

	if (prof.nused * 2 >= prof.nslots && !grow_locked())
		return NULL;
	for (i = slot_of(addr, prof.nslots); prof.slots[i];
	     i = (i + 1) & (prof.nslots - 1))
		if (prof.slots[i]->addr == addr)
			return prof.slots[i];

	ch = prof.chunks;
	if (!ch || ch->used == CHUNK_COUNTERS) {
		ch = calloc(1, sizeof(*ch));
		if (!ch)
			return NULL;
		ch->next = prof.chunks;
		prof.chunks = ch;
	}
	c = &ch->c[ch->used++];
	c->addr = addr;
	prof.slots[i] = c;
	prof.nused++;
	return c;
}

/* ---- The window ---- */

static void zero_locked(void)
{
	struct chunk *ch;
	size_t i;

	for (ch = prof.chunks; ch; ch = ch->next)
		for (i = 0; i < ch->used; i++)
			ch->c[i].count = 0;
}

static void write_locked(void)
{
	uint64_t total = 0;
	struct chunk *ch;
	char path[4096];
	size_t i;
	FILE *f;

	prof.windows++;
	snprintf(path, sizeof(path), "%s.%u", prof.out, prof.windows);
	f = fopen(path, "w");
	if (!f) {
		say("insnprof: %s: %s\n", path, strerror(errno));
		return;
	}
	for (ch = prof.chunks; ch; ch = ch->next)
		for (i = 0; i < ch->used; i++)
			total += ch->c[i].count;
	fprintf(f, "# total %" PRIu64 "\n", total);
	for (ch = prof.chunks; ch; ch = ch->next)
		for (i = 0; i < ch->used; i++)
			if (ch->c[i].count)
				fprintf(f, "%" PRIx64 " %" PRIu64 "\n",
					ch->c[i].addr, ch->c[i].count);
	if (fclose(f)) {
		say("insnprof: %s: %s\n", path, strerror(errno));
		return;
	}
	say("insnprof: window %u: %" PRIu64 " instructions in %s\n",
	    prof.windows, total, path);
}

static void on_start(unsigned int vcpu, void *data)
{
	(void)vcpu;
	(void)data;
	pthread_mutex_lock(&prof.lock);
	zero_locked();
	prof.open = true;
	pthread_mutex_unlock(&prof.lock);
}

static void on_end(unsigned int vcpu, void *data)
{
	(void)vcpu;
	(void)data;
	pthread_mutex_lock(&prof.lock);
	if (prof.open)
		write_locked();
	else
		say("insnprof: an end mark without a start: ignored\n");
	prof.open = false;
	pthread_mutex_unlock(&prof.lock);
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t addr = qemu_plugin_tb_vaddr(tb);
	struct counter *c;

	(void)id;
	/* A mark's own block may or may not count: a few instructions. */
	if (addr == prof.start)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_start,
						     QEMU_PLUGIN_CB_NO_REGS, NULL);
	else if (addr == prof.end)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_end,
						     QEMU_PLUGIN_CB_NO_REGS, NULL);

	pthread_mutex_lock(&prof.lock);
	c = counter_get_locked(addr);
	pthread_mutex_unlock(&prof.lock);
	if (c)
		qemu_plugin_register_vcpu_tb_exec_inline(tb,
			QEMU_PLUGIN_INLINE_ADD_U64, &c->count,
			qemu_plugin_tb_n_insns(tb));
	else
		say("insnprof: out of memory: block %#" PRIx64 " uncounted\n",
		    addr);
}

static void on_qemu_exit(qemu_plugin_id_t id, void *data)
{
	struct chunk *ch;

	(void)id;
	(void)data;
	pthread_mutex_lock(&prof.lock);
	if (prof.open)
		say("insnprof: the guest ended inside a window: not written\n");
	say("insnprof: %u window(s), %zu block addresses\n", prof.windows,
	    prof.nused);
	while ((ch = prof.chunks)) {
		prof.chunks = ch->next;
		free(ch);
	}
	free(prof.slots);
	prof.slots = NULL;
	pthread_mutex_unlock(&prof.lock);
}

static bool parse_addr(const char *s, uint64_t *addr)
{
	char *end;

	errno = 0;
	*addr = strtoull(s, &end, 16);
	return !errno && end != s && !*end && *addr;
}

INSNPROF_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					const qemu_info_t *info,
					int argc, char **argv)
{
	int i;

	if (info->system_emulation && info->system.smp_vcpus > 1)
		say("insnprof: %d vCPUs: counts are not atomic, expect loss\n",
		    info->system.smp_vcpus);
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!strncmp(a, "start=", 6) && parse_addr(a + 6, &prof.start))
			continue;
		if (!strncmp(a, "end=", 4) && parse_addr(a + 4, &prof.end))
			continue;
		if (!strncmp(a, "out=", 4) && a[4]) {
			prof.out = argv[i] + 4;
			continue;
		}
		say("insnprof: bad argument \"%s\"\n", a);
		return -1;
	}
	if (!prof.start || !prof.end || prof.start == prof.end || !prof.out) {
		say("insnprof: needs start=HEX,end=HEX (distinct) and out=PATH\n");
		return -1;
	}
	pthread_mutex_lock(&prof.lock);
	if (!grow_locked()) {
		pthread_mutex_unlock(&prof.lock);
		return -1;
	}
	pthread_mutex_unlock(&prof.lock);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_qemu_exit, NULL);
	return 0;
}
