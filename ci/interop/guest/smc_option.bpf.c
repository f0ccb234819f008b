// A sock_ops program that puts the SMC TCP option on the SYN and SYN-ACK of every TCP socket in
// its cgroup: the rdmaconf tester's plain TCP sockets, so that Linux's SMC stack talks CLC to them.
//
// Why: Linux only runs the CLC handshake when the TCP handshake announced SMC (RFC 7609 §3.1 and
// §3.5.1.1: the experimental TCP option, kind 254 with the SMC ExID 0xE2D4C3D9, on SYN and SYN-ACK). An AF_SMC
// listener whose client's SYN lacks it falls back to TCP without a word; an AF_SMC client whose
// SYN-ACK lacks it does the same. The tester uses plain TCP sockets, which cannot set that option.
// Since Linux 5.10 a sock_ops BPF program may reserve room for, and then write, its own TCP header
// options (BPF_SOCK_OPS_HDR_OPT_LEN_CB / BPF_SOCK_OPS_WRITE_HDR_OPT_CB).
//
// Attach it to a cgroup v2 holding only the tester:
//   bpftool prog load smc_option.bpf.o /sys/fs/bpf/smc_option type sockops
//   bpftool cgroup attach CGROUP sock_ops pinned /sys/fs/bpf/smc_option
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

// RFC 7609 §3.1: kind 254, length 6, the 4-octet ExID that names SMC.
#define SMC_OPTION_KIND 254
#define SMC_OPTION_LENGTH 6
// TCP header flag bits as skb_tcp_flags holds them (RFC 9293 §3.1)
#define TCP_FLAG_SYN 0x02

SEC("sockops")
int smc_option(struct bpf_sock_ops* skops) {
  switch (skops->op) {
    case BPF_SOCK_OPS_TCP_CONNECT_CB:  // active open: this socket's SYN
    case BPF_SOCK_OPS_TCP_LISTEN_CB:   // passive open: the SYN-ACKs of this listener
      bpf_sock_ops_cb_flags_set(skops, skops->bpf_sock_ops_cb_flags | BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG);
      return 1;
    case BPF_SOCK_OPS_HDR_OPT_LEN_CB:
      if (skops->skb_tcp_flags & TCP_FLAG_SYN) bpf_reserve_hdr_opt(skops, SMC_OPTION_LENGTH, 0);
      return 1;
    case BPF_SOCK_OPS_WRITE_HDR_OPT_CB:
      if (skops->skb_tcp_flags & TCP_FLAG_SYN) {
        const unsigned char option[SMC_OPTION_LENGTH] = {SMC_OPTION_KIND, SMC_OPTION_LENGTH, 0xE2, 0xD4, 0xC3, 0xD9};
        bpf_store_hdr_opt(skops, option, sizeof(option), 0);
      }
      // Only the handshake carries it: once a connected socket sends a segment without SYN, stop
      // being called for every later one. (A listener's SYN-ACK must not clear it: the flags are
      // the listener's, and its next connections need the option too.)
      if (!(skops->skb_tcp_flags & TCP_FLAG_SYN))
        bpf_sock_ops_cb_flags_set(skops, skops->bpf_sock_ops_cb_flags & ~BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG);
      return 1;
    default:
      return 1;
  }
}

char LICENSE[] SEC("license") = "GPL";
