#!/usr/bin/env python3
"""Fails on an offset, size, mask or code written as a number where a wire
declaration or a named constant should say it.

  literal_offsets.py FOLDER...
  literal_offsets.py --self-test    the scan on lines it must and must not flag

Every header the Wireshark plugin (dissector/) and capture reading
(pcap/capture/) read is declared once, in reference/*/headers.hpp or
pcap/capture/*.hpp (wire::HeaderDecl): offsets, sizes, masks and codes come
from there, or from a named constant. This scan reads the C++ files of each
FOLDER (not its tests/), without comments and string or character literals,
and reports an integer literal other than 0 and 1 (and Wireshark's -1, "to
the end") where it places or picks octets:

  - an index: `h[4]`, `v[at + 3]` (not the size of an array being declared);
  - an offset or length given to Wireshark's tvb accessors (tvb_get_*,
    tvb_memeql, tvb_new_subset_length, tvb_captured_length_remaining) or to
    a tree item (proto_tree_add_*, add_header, add_overlay);
  - octets at a pointer or span position: `p + 16`, `subspan(2, 4)`, `first(12)`;
  - a shift by whole octets or a nibble (`<< 8`, `>> 4`; not of a literal,
    as in the limit `1u << 16`), a hex mask
    (`& 0x0f`) or a hex code compared (`== 0x07`).

Lines that define a named constant (`constexpr`, `static const`) are where
numbers belong and are not read. What ALLOWED below names is Wireshark's own
API, with its reason. Exit status 1 with one line per finding,
file:line: the literal and the line.
"""
import os
import re
import sys

# (file name ending, literal): why it is not a layout. Kept small: add a
# named constant rather than a row here.
ALLOWED = {
    # prefs_register_range_preference()/range_convert_str() take the
    # highest value a range may hold: Wireshark's API, a TCP port's maximum.
    ("dissector/connection.cpp", "65535"),
}

INT = re.compile(r"(?<![\w.])(0[xX][0-9a-fA-F']+|\d[\d']*)([uUlL]*)(?![\w.])")


def strip(text):
    """The text with comments, strings and character literals blanked (lines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif c in "\"'" and not (c == "'" and i > 0 and text[i - 1].isalnum()):
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (j - i - 1) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def value(lit):
    lit = lit.replace("'", "")
    return int(lit, 16) if lit.lower().startswith("0x") else int(lit, 10)


CALLS = re.compile(r"\b(tvb_get_\w+|tvb_memeql|tvb_new_subset_length|tvb_new_subset_remaining|"
                   r"tvb_captured_length_remaining|tvb_reported_length_remaining|proto_tree_add_\w+|"
                   r"add_header|add_overlay|subspan|first|last|view)\s*\(")
LIT = r"(?:0[xX][0-9a-fA-F']+|\d[\d']*)[uUlL]*"
PATTERNS = [
    ("index", re.compile(r"(?<=[\w\])])\s*\[([^\[\]]*)\]")),
    ("pointer", re.compile(r"\b\w+\s*\+\s*(" + LIT + r")\b(?=\s*[,)])")),
    # A shift that assembles or splits octets; not a limit such as `1u << 16`.
    ("shift", re.compile(r"(?<![\d}uUlL])(?<![\d}uUlL]\s)(?:<<|>>)\s*(4|8|16|24|32|40|48|56)\b")),
    ("mask", re.compile(r"(?<![&|])[&|]\s*(0[xX][0-9a-fA-F']+)")),
    ("code", re.compile(r"[!=]=\s*(0[xX][0-9a-fA-F']+)|(0[xX][0-9a-fA-F']+)\s*[!=]=")),
]


def literals(text):
    """The integer literals in `text` other than 0 and 1."""
    out = []
    for m in INT.finditer(text):
        if value(m.group(1)) not in (0, 1):
            out.append(m.group(0))
    return out


def call_args(code, open_paren):
    """The argument texts of the call whose '(' is at open_paren (on this line)."""
    depth, args, cur = 0, [], []
    for ch in code[open_paren:]:
        if ch == "(":
            depth += 1
            if depth == 1:
                continue
        elif ch == ")":
            depth -= 1
            if depth == 0:
                args.append("".join(cur))
                return args
        if ch == "," and depth == 1:
            args.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    args.append("".join(cur))
    return args


def line_findings(code):
    found = []
    for kind, pat in PATTERNS:
        for m in pat.finditer(code):
            if kind == "index":
                if array_size(code, m.start(1)):
                    continue
                found += literals(m.group(1))
            else:
                lit = next(g for g in m.groups() if g)
                if value(re.sub(r"[uUlL]+$", "", lit)) not in (0, 1):
                    found.append(lit)
    for m in CALLS.finditer(code):
        args = call_args(code, m.end() - 1)
        name = m.group(1)
        # tvb accessors: every argument after the tvb; tree items: the
        # offset and length after the tvb (their values are the caller's).
        if name.startswith("proto_tree_add_") or name in ("add_header", "add_overlay"):
            at = next((k for k, a in enumerate(args) if re.search(r"tvb|\budp\b|\bds\b|\blt\b|\bmt\b", a)), None)
            picked = args[at + 1:at + 3] if at is not None else []
        elif name.startswith("tvb_"):
            picked = args[1:]
        else:
            picked = args
        for a in picked:
            found += [lit for lit in literals(a) if not re.fullmatch(r"\s*-\s*1\s*", a)]
    return found


def array_size(code, start):
    """The text at `start` sizes an array being declared: `type name[N]`."""
    m = re.search(r"([\w:>]+)\s+\w+\s*\[\s*$", code[:start])
    return bool(m) and m.group(1) not in ("return", "case", "else", "delete", "throw", "and", "or", "not")


def scan(path, rel):
    findings = []
    with open(path, encoding="utf-8") as f:
        raw_text = f.read()
    raw_lines = raw_text.split("\n")
    for no, code in enumerate(strip(raw_text).split("\n"), 1):
        if re.search(r"\bconstexpr\b|\bstatic const\b|^\s*#", code):
            continue
        for lit in dict.fromkeys(line_findings(code)):
            if any(rel.endswith(f) and lit == allowed for f, allowed in ALLOWED):
                continue
            findings.append(f"{rel}:{no}: {lit} in: {raw_lines[no - 1].strip()}")
    return findings


# Lines the scan must flag, and lines it must leave alone (--self-test).
SELF_TEST_BAD = [
    "const bool tagged = (tvb_get_guint8(tvb, off) & 0x80) != 0;",
    "copied_opcode = tvb_get_guint8(tvb, off + 1) & 0x0f;",
    "proto_tree_add_uint(dt, i.ddp_msn_expected, tvb, 10, 4, m.msn_expected);",
    "add_header(rt, tvb, 2, rdmap::InvalidateStagSpec::decl);",
    "return tvb_memeql(tvb, 0, mpa::kRequestKey.data(), 7) == 0;",
    "link = static_cast<LinkType>(m.u32(h + 20) & 0xffffu);",
    "const std::uint16_t major = h[5] << 8 | h[4];",
    "if (code == 0x07) return;",
    "out.captured = wire::Bytes(data + 16, caplen);",
    "const auto exid = option.subspan(2, 4);",
]
SELF_TEST_GOOD = [
    "constexpr std::size_t kKeyProbe = 8;",
    "std::uint8_t head[kHeadProbe]; char buf[160];",
    "proto_tree_add_uint(t, i.llc_entry, tvb, 0, 0, static_cast<guint32>(k + 1));",
    "proto_tree_add_item(tree, i.proto_ddp, tvb, 0, -1, ENC_NA);",
    "std::size_t max_connections = 1u << 16;",
    "// RFC 5044 §7.1.2: PD_Length larger than 512 is an error",
    'const char* s = "h[4] << 8";',
    "if (a.len == static_cast<int>(kIpv4Octets)) return v[at];",
]


def self_test():
    failures = [f"not flagged: {line}" for line in SELF_TEST_BAD if not line_findings(strip(line))]
    failures += [f"flagged: {line}" for line in SELF_TEST_GOOD
                 if line_findings(strip(line)) and not re.search(r"\bconstexpr\b", line)]
    for f in failures:
        print(f)
    return 1 if failures else 0


def main(folders):
    root = os.getcwd()
    findings = []
    for folder in folders:
        for dirpath, dirnames, filenames in os.walk(folder):
            dirnames[:] = sorted(d for d in dirnames if d != "tests")
            for name in sorted(filenames):
                if name.endswith((".cpp", ".hpp")):
                    path = os.path.join(dirpath, name)
                    findings += scan(path, os.path.relpath(path, root))
    for f in findings:
        print(f)
    if findings:
        print(f"{len(findings)} literal(s) where a declaration or a named constant should say it", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    if sys.argv[1] == "--self-test":
        sys.exit(self_test())
    sys.exit(main(sys.argv[1:]))
