// smc_config: the two settings Linux 6.1's SMC-R needs over soft-RoCE, through SMC's generic netlink
// families (Debian packages no smc-tools):
//
//   smc_config pnet PNETID NETDEV IBDEV PORT   PNET table entry (family SMC_PNETID): the RoCE device
//                                              that serves a netdev. rdma_rxe cannot tell SMC which
//                                              netdev it sits on, so without the entry the stack
//                                              finds no RoCE device and declines.
//   smc_config ueid UEID                       a User Defined EID (family SMC_GEN_NETLINK): SMC v2
//                                              (SMC-Rv2) is only offered or accepted with one.
//
// Built on the host (same Debian release as the guest) and run in the guest as root.
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/smc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct message {
  struct nlmsghdr nl;
  struct genlmsghdr genl;
  char attrs[512];
};

static int fd = -1;
static uint32_t seq = 1;

// Appends one attribute; false when it does not fit.
static int put_attr(struct message* m, uint16_t type, const void* data, uint16_t len) {
  const size_t at = NLMSG_ALIGN(m->nl.nlmsg_len);
  const size_t need = NLA_HDRLEN + len;
  if (at + NLA_ALIGN(need) > sizeof(*m)) return 0;
  struct nlattr* a = (struct nlattr*)((char*)m + at);
  a->nla_type = type;
  a->nla_len = (uint16_t)need;
  memcpy((char*)a + NLA_HDRLEN, data, len);
  memset((char*)a + need, 0, NLA_ALIGN(need) - need);
  m->nl.nlmsg_len = (uint32_t)(at + NLA_ALIGN(need));
  return 1;
}

static void start(struct message* m, uint16_t family, uint8_t cmd, uint8_t version) {
  memset(m, 0, sizeof(*m));
  m->nl.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
  m->nl.nlmsg_type = family;
  m->nl.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
  m->nl.nlmsg_seq = seq++;
  m->genl.cmd = cmd;
  m->genl.version = version;
}

// Sends `m` and reads the answer. Returns 0 or a negative errno; with `family_id` set, the answer
// to CTRL_CMD_GETFAMILY is searched for CTRL_ATTR_FAMILY_ID.
static int transact(struct message* m, uint16_t* family_id) {
  if (send(fd, m, m->nl.nlmsg_len, 0) < 0) return -errno;
  char buf[8192];
  for (;;) {
    const ssize_t got = recv(fd, buf, sizeof(buf), 0);
    if (got < 0) return -errno;
    int len = (int)got;
    for (struct nlmsghdr* h = (struct nlmsghdr*)buf; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
      if (h->nlmsg_type == NLMSG_ERROR) {
        const struct nlmsgerr* e = NLMSG_DATA(h);
        if (e->error != 0 || !family_id) return e->error;
        continue;
      }
      if (family_id && h->nlmsg_len >= NLMSG_LENGTH(GENL_HDRLEN)) {
        int left = (int)h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
        struct nlattr* a = (struct nlattr*)((char*)NLMSG_DATA(h) + GENL_HDRLEN);
        while (left >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= left) {
          if (a->nla_type == CTRL_ATTR_FAMILY_ID && a->nla_len >= NLA_HDRLEN + 2) {
            memcpy(family_id, (char*)a + NLA_HDRLEN, 2);
            return 0;
          }
          left -= NLA_ALIGN(a->nla_len);
          a = (struct nlattr*)((char*)a + NLA_ALIGN(a->nla_len));
        }
      }
      if (h->nlmsg_type == NLMSG_DONE) return family_id ? -ENOENT : 0;
    }
  }
}

static int family(const char* name, uint16_t* id) {
  struct message m;
  start(&m, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1);
  if (!put_attr(&m, CTRL_ATTR_FAMILY_NAME, name, (uint16_t)(strlen(name) + 1))) return -EMSGSIZE;
  return transact(&m, id);
}

static int usage(void) {
  fprintf(stderr, "usage: smc_config pnet PNETID NETDEV IBDEV PORT | smc_config ueid UEID\n");
  return 2;
}

int main(int argc, char** argv) {
  if (argc < 3) return usage();
  fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
  if (fd < 0) {
    perror("smc_config: netlink socket");
    return 1;
  }
  struct message m;
  uint16_t id = 0;
  int rc;
  if (strcmp(argv[1], "pnet") == 0 && argc == 6) {
    const long port = strtol(argv[5], NULL, 10);
    if (port < 1 || port > 255) return usage();
    const uint8_t ibport = (uint8_t)port;
    if ((rc = family(SMCR_GENL_FAMILY_NAME, &id)) != 0) goto failed;
    start(&m, id, SMC_PNETID_ADD, SMCR_GENL_FAMILY_VERSION);
    if (!put_attr(&m, SMC_PNETID_NAME, argv[2], (uint16_t)(strlen(argv[2]) + 1)) ||
        !put_attr(&m, SMC_PNETID_ETHNAME, argv[3], (uint16_t)(strlen(argv[3]) + 1)) ||
        !put_attr(&m, SMC_PNETID_IBNAME, argv[4], (uint16_t)(strlen(argv[4]) + 1)) ||
        !put_attr(&m, SMC_PNETID_IBPORT, &ibport, 1))
      return usage();
  } else if (strcmp(argv[1], "ueid") == 0 && argc == 3) {
    // The kernel takes exactly SMC_MAX_EID_LEN octets, blank padded, and a NUL.
    char ueid[SMC_MAX_EID_LEN + 1];
    if (strlen(argv[2]) > SMC_MAX_EID_LEN) return usage();
    memset(ueid, ' ', SMC_MAX_EID_LEN);
    memcpy(ueid, argv[2], strlen(argv[2]));
    ueid[SMC_MAX_EID_LEN] = '\0';
    if ((rc = family(SMC_GENL_FAMILY_NAME, &id)) != 0) goto failed;
    start(&m, id, SMC_NETLINK_ADD_UEID, SMC_GENL_FAMILY_VERSION);
    if (!put_attr(&m, SMC_NLA_EID_TABLE_ENTRY, ueid, sizeof(ueid))) return usage();
  } else {
    return usage();
  }
  if ((rc = transact(&m, NULL)) != 0 && rc != -EEXIST) goto failed;
  return 0;
failed:
  fprintf(stderr, "smc_config %s: %s\n", argv[1], strerror(-rc));
  return 1;
}
