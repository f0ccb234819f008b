"""One HMP command through a qemu's QMP socket (vm.sh savevm/loadvm): prints its output, exits 1 on an error."""
import json
import socket
import sys


def main() -> int:
    sock_path, command = sys.argv[1], sys.argv[2]
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sock_path)
    f = s.makefile("rw")
    json.loads(f.readline())  # the greeting
    for req in ({"execute": "qmp_capabilities"},
                {"execute": "human-monitor-command", "arguments": {"command-line": command}}):
        f.write(json.dumps(req) + "\n")
        f.flush()
        while True:  # events may come before the answer
            msg = json.loads(f.readline())
            if "return" in msg or "error" in msg:
                break
        if "error" in msg:
            print(msg["error"].get("desc", msg["error"]), file=sys.stderr)
            return 1
    out = msg["return"]
    if out:
        print(out, end="")
    # HMP reports a failed savevm/loadvm as text ("Error: ..."), not as a QMP error.
    return 1 if "Error" in out else 0


if __name__ == "__main__":
    sys.exit(main())
