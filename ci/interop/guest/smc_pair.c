/*
 * smc_pair: two AF_SMC endpoints that exchange one message each way, for the SMC-D capture of the
 * interop run (ci/interop/README.md, "SMC-D over loopback-ism"). Linux picks the path itself: with
 * loopback-ism loaded and a UEID both ends share, SMC-D v2 is chosen within one kernel.
 *
 *   smc_pair server ADDR PORT COUNT       accept COUNT connections, echo what each sends, then exit
 *   smc_pair serve ADDR PORT              accept until killed, each connection echoed by a child of its
 *                                         own (the IUT's application for the smcr suite: echo, urgent
 *                                         data as urgent data, and close once the peer closed)
 *   smc_pair client ADDR PORT COUNT SIZE  COUNT connections, each sends SIZE octets, reads them back
 *   smc_pair echo-client ADDR PORT        one connection, echoed as serve's children do (the IUT's
 *                                         application when it is the SMC client of the smcr suite)
 *
 * Exit status 0 when every echo came back intact. Built on the host with gcc (same Debian release).
 */
#include <arpa/inet.h>
#include <signal.h>
#include <netinet/in.h>
#include <poll.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef AF_SMC
#define AF_SMC 43
#endif
#define SMCPROTO_SMC 0 /* AF_SMC over IPv4 addresses (linux/smc.h) */

static char buf[65536];

static int parse(const char *addr, const char *port, struct sockaddr_in *sa)
{
	memset(sa, 0, sizeof *sa);
	sa->sin_family = AF_INET;
	sa->sin_port = htons((unsigned short)atoi(port));
	return inet_pton(AF_INET, addr, &sa->sin_addr) == 1 ? 0 : -1;
}

static int serve(const struct sockaddr_in *sa, int count)
{
	int l = socket(AF_SMC, SOCK_STREAM, SMCPROTO_SMC), one = 1;
	if (l < 0) { perror("socket(AF_SMC)"); return 1; }
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(l, (const struct sockaddr *)sa, sizeof *sa) || listen(l, 8)) { perror("bind/listen"); return 1; }
	printf("server: listening\n");
	fflush(stdout);
	for (int c = 0; c < count; c++) {
		int fd = accept(l, NULL, NULL);
		if (fd < 0) { perror("accept"); return 1; }
		long total = 0;
		ssize_t n;
		while ((n = read(fd, buf, sizeof buf)) > 0) {
			if (write(fd, buf, (size_t)n) != n) { perror("write"); break; }
			total += n;
		}
		printf("server: connection %d echoed %ld octets\n", c + 1, total);
		close(fd);
	}
	close(l);
	return 0;
}

/* All of LEN octets, across short writes (a stream socket may take part of a write and say how
 * much); 0, or -1 (with the reason on stderr, the run's smcr-suite-linux.txt) when it failed. */
static int write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR) continue;
		if (w <= 0) {
			fprintf(stderr, "echo: write of %zu octets: %s\n", len, w < 0 ? strerror(errno) : "nothing written");
			return -1;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* Echoes what the peer sends until it closes; urgent data comes back as urgent data, as the
 * smcr suite's test ULP does (RFC 7609 §4.7.5: the urgent octet is out of band for read(), which
 * stops before it; at the mark it is taken with MSG_OOB and sent back with MSG_OOB). "At the
 * mark": sockatmark() says so over TCP; over SMC the read that ends before the urgent octet
 * already moves the consumer cursor past it (smc_rx_update_consumer), so sockatmark() never
 * does, and only POLLPRI without POLLIN (nothing normal left before the mark) tells. */
static void echo(int fd)
{
	for (;;) {
		struct pollfd p = {fd, POLLIN | POLLPRI, 0};
		if (poll(&p, 1, -1) < 0) break;
		char urgent;
		const int at_mark = (p.revents & POLLPRI) && (sockatmark(fd) == 1 || !(p.revents & POLLIN));
		if (at_mark && recv(fd, &urgent, 1, MSG_OOB) == 1) {
			if (send(fd, &urgent, 1, MSG_OOB) != 1) break;
			continue;
		}
		ssize_t n = read(fd, buf, sizeof buf);
		if (n < 0) { perror("echo: read"); break; }
		if (n == 0) break;
		if (write_all(fd, buf, (size_t)n)) break;
	}
	close(fd);
}

static int serve_forever(const struct sockaddr_in *sa)
{
	int l = socket(AF_SMC, SOCK_STREAM, SMCPROTO_SMC), one = 1;
	if (l < 0) { perror("socket(AF_SMC)"); return 1; }
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(l, (const struct sockaddr *)sa, sizeof *sa) || listen(l, 16)) { perror("bind/listen"); return 1; }
	signal(SIGCHLD, SIG_IGN); /* no zombies: nobody waits for the children */
	printf("serve: listening\n");
	fflush(stdout);
	for (long c = 1;; c++) {
		int fd = accept(l, NULL, NULL);
		if (fd < 0) { perror("accept"); continue; }
		pid_t child = fork();
		if (child == 0) {
			close(l);
			echo(fd);
			_exit(0);
		}
		close(fd);
		printf("serve: connection %ld\n", c);
		fflush(stdout);
	}
}

static int connect_and_echo(const struct sockaddr_in *sa, int count, long size)
{
	for (int c = 0; c < count; c++) {
		int fd = socket(AF_SMC, SOCK_STREAM, SMCPROTO_SMC);
		if (fd < 0) { perror("socket(AF_SMC)"); return 1; }
		if (connect(fd, (const struct sockaddr *)sa, sizeof *sa)) { perror("connect"); return 1; }
		long sent = 0, got = 0, bad = 0;
		while (sent < size) {
			long chunk = size - sent > 4096 ? 4096 : size - sent;
			for (long i = 0; i < chunk; i++) buf[i] = (char)('A' + (sent + i) % 26);
			if (write(fd, buf, (size_t)chunk) != chunk) { perror("write"); return 1; }
			sent += chunk;
			while (got < sent) {
				ssize_t n = read(fd, buf, (size_t)(sent - got));
				if (n <= 0) { perror("read"); return 1; }
				for (ssize_t i = 0; i < n; i++) bad += buf[i] != (char)('A' + (got + i) % 26);
				got += n;
			}
		}
		shutdown(fd, SHUT_WR);
		while (read(fd, buf, sizeof buf) > 0) {}
		close(fd);
		printf("client: connection %d sent %ld octets, %ld back, %ld differ\n", c + 1, sent, got, bad);
		if (bad) return 1;
	}
	return 0;
}

/* One connection to ADDR:PORT whose application echoes, as serve's children do: the IUT's
 * application for the smcr suite's initiator-role cases (the tester is the SMC server). */
static int connect_and_serve(const struct sockaddr_in *sa)
{
	int fd = socket(AF_SMC, SOCK_STREAM, SMCPROTO_SMC);
	if (fd < 0) { perror("socket(AF_SMC)"); return 1; }
	if (connect(fd, (const struct sockaddr *)sa, sizeof *sa)) { perror("connect"); close(fd); return 1; }
	echo(fd);
	printf("echo-client: the peer closed\n");
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa;
	if (argc >= 4 && !strcmp(argv[1], "echo-client") && !parse(argv[2], argv[3], &sa)) return connect_and_serve(&sa);
	if (argc >= 4 && !strcmp(argv[1], "serve") && !parse(argv[2], argv[3], &sa)) return serve_forever(&sa);
	if (argc >= 5 && !strcmp(argv[1], "server") && !parse(argv[2], argv[3], &sa)) return serve(&sa, atoi(argv[4]));
	if (argc >= 6 && !strcmp(argv[1], "client") && !parse(argv[2], argv[3], &sa))
		return connect_and_echo(&sa, atoi(argv[4]), atol(argv[5]));
	fprintf(stderr, "usage: smc_pair server ADDR PORT COUNT | serve ADDR PORT | client ADDR PORT COUNT SIZE"
			" | echo-client ADDR PORT\n");
	return 2;
}
