/* py-client: a test helper (not installed).  python3 without python3's
 * start: runs python3's command line (-c CODE ARG..., - ARG..., or
 * SCRIPT ARG...) in tests/helpers/pyserver.py, which tests/run.sh starts
 * at $IRPIPE_PYSERVER with numpy, onnx and torch imported once; exits
 * with the program's exit status.  Passes the server its standard input,
 * output and error, its working directory and its environment.  Without
 * a server to connect to, it is /usr/bin/python3 (exec'd).
 *
 *   py-client ARG...
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

extern char **environ;

static const char python[] = "/usr/bin/python3";

static void
use_python(char **argv)
{
	argv[0] = (char *)python;
	execv(python, argv);
	fprintf(stderr, "py-client: cannot run %s: %s\n", python, strerror(errno));
	exit(127);
}

/* the request's fields, each NUL-ended: cwd, argc, arguments, environment */
static char *
request(int argc, char **argv, uint32_t *len)
{
	char *cwd = getcwd(NULL, 0), count[16];
	if (!cwd)
		return NULL;
	snprintf(count, sizeof count, "%d", argc - 1);
	size_t n = strlen(cwd) + 1 + strlen(count) + 1;
	for (int i = 1; i < argc; i++)
		n += strlen(argv[i]) + 1;
	for (char **e = environ; *e; e++)
		n += strlen(*e) + 1;
	char *buf = n < UINT32_MAX ? malloc(n) : NULL, *p = buf;
	if (buf) {
		p = stpcpy(p, cwd) + 1;
		p = stpcpy(p, count) + 1;
		for (int i = 1; i < argc; i++)
			p = stpcpy(p, argv[i]) + 1;
		for (char **e = environ; *e; e++)
			p = stpcpy(p, *e) + 1;
		*len = (uint32_t)n;
	}
	free(cwd);
	return buf;
}

static int
send_all(int s, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t k = send(s, p, n, MSG_NOSIGNAL);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	const char *path = getenv("IRPIPE_PYSERVER");
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	if (!path || !*path || strlen(path) >= sizeof addr.sun_path)
		use_python(argv);
	strcpy(addr.sun_path, path);
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&addr, sizeof addr) != 0) {
		if (s >= 0)
			close(s);
		use_python(argv);
	}
	uint32_t len = 0;
	char *req = request(argc, argv, &len);
	if (!req) {
		fprintf(stderr, "py-client: out of memory\n");
		return 1;
	}
	/* the length, with the three descriptors; then the fields */
	int fds[3] = {0, 1, 2};
	union {
		char buf[CMSG_SPACE(sizeof fds)];
		struct cmsghdr align;
	} ctl;
	memset(&ctl, 0, sizeof ctl);
	struct iovec iov = {.iov_base = &len, .iov_len = sizeof len};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1,
	                     .msg_control = ctl.buf, .msg_controllen = sizeof ctl.buf};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof fds);
	memcpy(CMSG_DATA(c), fds, sizeof fds);
	ssize_t k;
	while ((k = sendmsg(s, &msg, MSG_NOSIGNAL)) < 0 && errno == EINTR)
		;
	int bad = k != (ssize_t)sizeof len || send_all(s, req, len) != 0;
	free(req);
	int32_t status;
	size_t got = 0;
	while (!bad && got < sizeof status) {
		k = recv(s, (char *)&status + got, sizeof status - got, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			bad = 1;
		else
			got += (size_t)k;
	}
	close(s);
	if (bad) {
		fprintf(stderr, "py-client: the server at %s failed\n", path);
		return 1;
	}
	return status;
}
