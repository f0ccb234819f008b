/*
 * clc_relay: brings the host's tester to Linux's SMC CLC server in the guest, for `ci/interop.sh --fuzz`
 * (ci/interop/README.md, "Fuzzing Linux's CLC server").
 *
 *   clc_relay LISTEN-ADDR PORT NETNS TARGET-ADDR TARGET-PORT
 *
 * Listens on LISTEN-ADDR:PORT (the guest's eth0, where qemu forwards the host's port), then moves
 * into network namespace NETNS (/run/netns/NETNS) and, for each connection it accepts, opens one
 * to TARGET-ADDR:TARGET-PORT from there and copies octets both ways, each read sent as it came.
 *
 * Why: Linux's AF_SMC listener speaks CLC only to a client whose SYN carried the SMC TCP option
 * (RFC 7609 §3.1). qemu's user network terminates the host's TCP connection, so no option of the
 * host's crosses it; the fuzzer (which must live on the host, to outlive the guest's kernel
 * crashes and its reboots) reaches the guest through this relay instead. Run in the tester's
 * cgroup, its outgoing connections get the option from smc_option.bpf.c, and opened from the
 * tester's namespace they come from 10.78.0.2 on smc1, the peer the fuzzer's --clc-* options
 * describe, as the live clc suite's connections do.
 *
 * A close is passed on as a close (FIN after the data), a reset as a reset; a target that refuses
 * the connection gets the host's connection reset. Built on the host with gcc (same Debian release).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int parse(const char *addr, const char *port, struct sockaddr_in *sa)
{
	char *end;
	long p = strtol(port, &end, 10);
	memset(sa, 0, sizeof *sa);
	sa->sin_family = AF_INET;
	sa->sin_port = htons((unsigned short)p);
	return *end == '\0' && p > 0 && p < 65536 && inet_pton(AF_INET, addr, &sa->sin_addr) == 1 ? 0 : -1;
}

/* Closes with a RST: what a peer that reset its side sees passed on. */
static void reset(int fd)
{
	struct linger l = {1, 0};
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
	close(fd);
}

static void relay(int a, const struct sockaddr_in *target)
{
	int one = 1;
	int b = socket(AF_INET, SOCK_STREAM, 0);
	if (b < 0 || connect(b, (const struct sockaddr *)target, sizeof *target)) {
		reset(a);
		return;
	}
	/* Each read goes on as one send: a case's split sends stay apart where the pause lets them. */
	setsockopt(a, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	setsockopt(b, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	int fd[2] = {a, b};
	int open_in[2] = {1, 1}; /* reading from fd[i] still possible */
	static char buf[65536];
	while (open_in[0] || open_in[1]) {
		struct pollfd p[2] = {{fd[0], open_in[0] ? POLLIN : 0, 0}, {fd[1], open_in[1] ? POLLIN : 0, 0}};
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR) continue;
			break;
		}
		for (int i = 0; i < 2; i++) {
			if (!open_in[i] || !p[i].revents) continue;
			ssize_t n = read(fd[i], buf, sizeof buf);
			if (n > 0) {
				if (send(fd[1 - i], buf, (size_t)n, MSG_NOSIGNAL) != n) goto reset_both;
			} else if (n == 0) {
				shutdown(fd[1 - i], SHUT_WR); /* FIN passed on */
				open_in[i] = 0;
			} else {
				goto reset_both; /* ECONNRESET and the like */
			}
		}
	}
	close(a);
	close(b);
	return;
reset_both:
	reset(a);
	reset(b);
}

int main(int argc, char **argv)
{
	struct sockaddr_in at, target;
	if (argc != 6 || parse(argv[1], argv[2], &at) || parse(argv[4], argv[5], &target)) {
		fprintf(stderr, "usage: clc_relay LISTEN-ADDR PORT NETNS TARGET-ADDR TARGET-PORT\n");
		return 2;
	}
	int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	if (l < 0) { perror("socket"); return 1; }
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(l, (const struct sockaddr *)&at, sizeof at) || listen(l, 16)) { perror("bind/listen"); return 1; }
	/* The listener stays in this namespace; every socket opened after setns is the other's. */
	char path[256];
	snprintf(path, sizeof path, "/run/netns/%s", argv[3]);
	int ns = open(path, O_RDONLY | O_CLOEXEC);
	if (ns < 0 || setns(ns, CLONE_NEWNET)) { perror(path); return 1; }
	close(ns);
	signal(SIGCHLD, SIG_IGN); /* no zombies: nobody waits for the children */
	printf("clc_relay: %s:%s -> %s:%s from namespace %s\n", argv[1], argv[2], argv[4], argv[5], argv[3]);
	fflush(stdout);
	for (;;) {
		int c = accept(l, NULL, NULL);
		if (c < 0) {
			if (errno != EINTR) perror("accept");
			continue;
		}
		pid_t child = fork();
		if (child == 0) {
			close(l);
			relay(c, &target);
			_exit(0);
		}
		close(c);
	}
}
