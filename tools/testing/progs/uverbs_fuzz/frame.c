// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * uverbs_fuzz: write() commands: how one is framed (sizes, pointers),
 * issued, and judged against what the ABI promises.
 */
#include "fuzz.h"

static bool clean;	/* this call is framed as the ABI says */
static __u64 wbuf_words[WBUF_BYTES / 8];
static char *const wbuf = (char *)wbuf_words;

/**
 * struct frame - how a command was framed
 * @len: bytes passed to write()
 * @ptr: the response pointer's kind
 * @out_bytes: response room declared, core and driver
 * @valid: sizes as the ABI says (or longer), every pointer valid
 */
struct frame {
	size_t len;
	enum ptr_kind ptr;
	size_t out_bytes;
	bool valid;
};

enum { SZ_EXACT, SZ_LONG, SZ_SHORT, SZ_CORE, SZ_WILD };

static int pick_in_size(void)
{
	__u32 r = rnd(100);

	if (exact_mode || clean || r < 80)
		return SZ_EXACT;
	if (r < 88)
		return SZ_LONG;
	if (r < 95)
		return SZ_SHORT;
	return SZ_WILD;
}

static int pick_out_size(void)
{
	__u32 r = rnd(100);

	if (exact_mode || clean || r < 75)
		return SZ_EXACT;
	if (r < 83)
		return SZ_CORE;
	if (r < 88)
		return SZ_SHORT;
	if (r < 95)
		return SZ_LONG;
	return SZ_WILD;
}

/* Append @len bytes of the command's input to wbuf at *@pos. */
static void put(size_t *pos, const void *src, size_t len)
{
	memcpy(wbuf + *pos, src, len);
	*pos += len;
}

/* Input bytes after the core command: the driver's, maybe changed. */
static size_t put_input_tail(struct wreq *w, size_t *pos, int in, size_t unit)
{
	size_t extra = 0;

	if (w->drv_in_len)
		put(pos, w->drv_in, w->drv_in_len);
	if (in == SZ_LONG) {
		extra = unit * (1 + rnd(16));
		fill_safe(wbuf + *pos, extra);
		*pos += extra;
	}
	return w->drv_in_len + extra;
}

/* Response room for an output size choice, in bytes. */
static size_t out_room(struct wreq *w, int out, size_t unit)
{
	size_t exact = w->resp_len + w->drv_out;

	switch (out) {
	case SZ_EXACT:
		return exact;
	case SZ_CORE:
		return w->resp_len;
	case SZ_SHORT:
		return exact ? rnd(exact) / unit * unit : 0;
	case SZ_LONG:
		return exact + unit * (1 + rnd(64));
	default:
		return rnd(2) ? 0 : (size_t)rnd(0x10000) * unit;
	}
}

static void frame_plain(struct wreq *w, struct frame *f)
{
	struct ib_uverbs_cmd_hdr hdr = { .command = w->cmd };
	int in = pick_in_size(), out = pick_out_size();
	size_t pos = sizeof(hdr), room;
	__u64 resp;

	f->ptr = exact_mode || clean ? PK_VALID : pick_ptr_kind();
	room = w->resp_len ? out_room(w, out, 4) : 0;
	resp = ptr_of(f->ptr, resp_buf);
	if (w->resp_len)
		memcpy(w->core, &resp, sizeof(resp));
	put(&pos, w->core, w->core_len);
	put_input_tail(w, &pos, in, 4);
	if (in == SZ_SHORT)
		pos = sizeof(hdr) + rnd(pos - sizeof(hdr)) / 4 * 4;
	hdr.in_words = (__u16)(pos / 4);
	if (in == SZ_WILD)
		hdr.in_words = rnd(3) ? (__u16)(pos / 4 + 1) : (__u16)next64();
	hdr.out_words = (__u16)min_sz(room / 4, 0xffffu);
	memcpy(wbuf, &hdr, sizeof(hdr));
	f->len = pos;
	f->out_bytes = hdr.out_words * 4ul;
	f->valid = (in == SZ_EXACT || in == SZ_LONG) &&
		   (out == SZ_EXACT || out == SZ_LONG || !w->resp_len) &&
		   f->ptr == PK_VALID;
}

static void frame_ex(struct wreq *w, struct frame *f)
{
	struct ib_uverbs_cmd_hdr hdr = {
		.command = w->cmd | IB_USER_VERBS_CMD_FLAG_EXTENDED };
	struct ib_uverbs_ex_cmd_hdr ex = { 0 };
	int in = pick_in_size(), out = pick_out_size();
	size_t pos = sizeof(hdr) + sizeof(ex), core = w->core_len, tail;
	size_t room;

	f->ptr = exact_mode || clean ? PK_VALID : pick_ptr_kind();
	put(&pos, w->core, core);
	if (core % 8) {		/* the core part is counted in u64s */
		memset(wbuf + pos, 0, 8 - core % 8);
		pos += 8 - core % 8;
	}
	tail = put_input_tail(w, &pos, in, 8);
	room = out_room(w, out, 8);
	hdr.in_words = (__u16)div_up(core, 8);
	ex.provider_in_words = (__u16)div_up(tail, 8);
	hdr.out_words = (__u16)min_sz(div_up(min_sz(room, w->resp_len), 8),
				   0xffffu);
	ex.provider_out_words = (__u16)min_sz((room - min_sz(room, w->resp_len)) / 8,
					   0xffffu);
	ex.response = ptr_of(f->ptr, resp_buf);
	if (in == SZ_SHORT)
		hdr.in_words = (__u16)rnd(hdr.in_words);
	if (in == SZ_WILD)
		ex.provider_in_words = (__u16)next64();
	if (!exact_mode && !clean && chance(3))
		ex.cmd_hdr_reserved = (__u32)next64();
	if (!exact_mode && !clean && chance(3)) {	/* no response wanted */
		ex.response = 0;
		hdr.out_words = 0;
		ex.provider_out_words = 0;
	}
	memcpy(wbuf, &hdr, sizeof(hdr));
	memcpy(wbuf + sizeof(hdr), &ex, sizeof(ex));
	f->len = pos;
	f->out_bytes = (hdr.out_words + ex.provider_out_words) * 8ul;
	f->valid = in == SZ_EXACT && (out == SZ_EXACT || out == SZ_LONG) &&
		   f->ptr == PK_VALID && !ex.cmd_hdr_reserved && ex.response;
}

/* How far a response may reach: its room, or what the command writes. */
static size_t reach(struct wreq *w, struct frame *f)
{
	size_t n = f->out_bytes > w->extent ? f->out_bytes : w->extent;

	return min_sz(n, RESP_BYTES - CANARY);
}

/* The kernel's writes stayed within the response and off read-only memory. */
static void check_bounds(struct wreq *w, struct frame *f)
{
	size_t end = reach(w, f), i;

	if (f->ptr == PK_VALID && end + CANARY <= RESP_BYTES) {
		for (i = end; i < end + CANARY; i++) {
			if ((unsigned char)resp_buf[i] != PATTERN) {
				failf("kernel wrote byte %zu of the response, past its %zu",
				      i, f->out_bytes);
				break;
			}
		}
	}
	if (f->ptr == PK_RO) {
		for (i = 0; i < PAGE; i++) {
			if ((unsigned char)ro_page[i] != PATTERN) {
				failf("the kernel wrote to a read-only page");
				break;
			}
		}
	}
}

/* What a write() returned, judged against what the ABI promises. */
static void judge_write(struct wreq *w, struct frame *f, ssize_t ret, int err)
{
	__u32 v;

	if (ret != -1 && (ret < 0 || (size_t)ret != f->len)) {
		failf("write() of %zu bytes returned %zd", f->len, ret);
		return;
	}
	check_bounds(w, f);
	if (ret == -1) {
		if (err == EFAULT && f->valid && w->embedded_ok)
			failf("EFAULT, with every pointer valid and the ABI's sizes");
		return;
	}
	if (f->ptr != PK_VALID || w->check_off < 0 ||
	    f->out_bytes < (size_t)w->check_off + 4)
		return;
	memcpy(&v, resp_buf + w->check_off, sizeof(v));
	if (v == PATTERN32)
		failf("success, but the response's u32 at %d left unwritten",
		      w->check_off);
}

/* Issue @w as write() on the current fd; true if it succeeded. */
bool wsubmit(struct wreq *w)
{
	struct frame f;
	ssize_t ret;
	int err;

	clean = w->force_clean || sane || chance(20);
	if (w->ex)
		frame_ex(w, &f);
	else
		frame_plain(w, &f);
	memset(resp_buf, PATTERN, reach(w, &f) + CANARY);
	timer_on();
	ret = write(fd, wbuf, f.len);
	err = errno;
	timer_off();
	count(w->op, ret >= 0, err);
	judge_write(w, &f, ret, err);
	w->ok = ret >= 0 && (size_t)ret == f.len;
	w->resp = w->ok && f.ptr == PK_VALID ? resp_buf : NULL;
	if (w->resp && w->ex) {
		w->out_len = min_sz(f.out_bytes, div_up(w->resp_len, 8) * 8);
		w->drv_out_len = f.out_bytes - w->out_len;
	} else if (w->resp) {
		w->out_len = min_sz(f.out_bytes, w->resp_len);
		w->drv_out_len = f.out_bytes - w->out_len;
	}
	errno = err;
	return w->ok;
}

void wreq_init(struct wreq *w, enum fuzz_op kind, __u32 cmd, void *core,
	       size_t core_len, size_t resp_len)
{
	memset(w, 0, sizeof(*w));
	w->op = kind;
	w->cmd = cmd;
	w->core = core;
	w->core_len = core_len;
	w->resp_len = resp_len;
	w->check_off = -1;
	w->embedded_ok = true;
}

/*
 * The driver part of a create response: the ring cookie, if the kernel
 * was given room for it and wrote it. The ex framing rounds the core
 * response up to u64s.
 */
bool resp_cookie(struct wreq *w, __u64 *cookie)
{
	size_t off = w->ex ? div_up(w->resp_len, 8) * 8 : w->resp_len;

	if (!w->resp || w->drv_out_len < sizeof(*cookie))
		return false;
	memcpy(cookie, w->resp + off, sizeof(*cookie));
	return *cookie != PATTERN64;
}
