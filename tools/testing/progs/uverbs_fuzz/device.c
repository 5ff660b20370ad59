// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* uverbs_fuzz: the device: its uverbs file, its event files, its limits. */
#include "fuzz.h"

char dev_path[64];
int fd = -1;			/* the current uverbs file */
int async_fd = -1;		/* its context's async event file */
int chans[MAX_CHANS];		/* its completion channels */
unsigned int nchans;
__u32 ncomp = 1;		/* the context's completion vectors */
bool fd_shared;			/* a child uses this fd too */
struct limits lim;

static bool read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, (int)len, f);
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

/* /dev/infiniband/uverbsN of the device named @name. */
bool find_uverbs(const char *name)
{
	DIR *d = opendir("/sys/class/infiniband_verbs");
	struct dirent *e;
	char path[320], ibdev[64];
	bool found = false;

	if (!d)
		return false;
	while (!found && (e = readdir(d))) {
		if (strncmp(e->d_name, "uverbs", 6))
			continue;
		snprintf(path, sizeof(path),
			 "/sys/class/infiniband_verbs/%s/ibdev", e->d_name);
		if (!read_line(path, ibdev, sizeof(ibdev)) ||
		    strcmp(ibdev, name))
			continue;
		snprintf(dev_path, sizeof(dev_path), "/dev/infiniband/%.40s",
			 e->d_name);
		found = true;
	}
	closedir(d);
	return found;
}

bool open_device(void)
{
	describe("open %s", dev_path);
	timer_on();
	fd = open(dev_path, O_RDWR | O_CLOEXEC);
	timer_off();
	count(OP_OPEN, fd >= 0, errno);
	if (fd < 0) {
		failf("cannot open %s: %s", dev_path, strerror(errno));
		return false;
	}
	return true;
}

/* The uverbs file is closed: its context's event files went with it. */
void forget_files(void)
{
	nchans = 0;
	async_fd = -1;
	fd_shared = false;
}

void set_nonblock(int efd)
{
	int fl = fcntl(efd, F_GETFL);

	if (fl >= 0)
		fcntl(efd, F_SETFL, fl | O_NONBLOCK);
}

/* Read events that are there (the files are non-blocking). */
void act_read_events(void)
{
	struct pollfd p[MAX_CHANS + 1];
	unsigned int i, n = 0;
	ssize_t ret;
	size_t len;

	if (async_fd >= 0)
		p[n++] = (struct pollfd){ .fd = async_fd, .events = POLLIN };
	for (i = 0; i < nchans; i++)
		p[n++] = (struct pollfd){ .fd = chans[i], .events = POLLIN };
	describe("poll and read %u event files", n);
	timer_on();
	if (poll(p, n, 0) < 0)
		n = 0;
	for (i = 0; i < n; i++) {
		if (!(p[i].revents & POLLIN))
			continue;
		len = chance(80) ? 16 : rnd(64);
		ret = read(p[i].fd, scratch, len);
		count(OP_EVENT_READ, ret >= 0, errno);
	}
	timer_off();
}
