"""check_plugin.tshark_survives reads tshark's tree text in 1 MiB chunks as it
comes. These cases put what it looks for where a chunk ends, through a stand-in
for tshark_with_plugin.sh that prints given octets and exits with a given code.

    python3 check_plugin_scan_test.py
"""
import os
import stat
import sys
import tempfile
import types
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_plugin  # noqa: E402

CHUNK = 1 << 20


class TsharkSurvives(unittest.TestCase):
    def run_with(self, output, returncode=0, must_read=True):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "out")
            with open(out, "wb") as f:
                f.write(output)
            runner = os.path.join(d, "runner.sh")
            with open(runner, "w") as f:
                f.write(f"#!/bin/sh\ncat '{out}'\nexit {returncode}\n")
            os.chmod(runner, stat.S_IRWXU)
            args = types.SimpleNamespace(runner=runner, plugin="plugin.so", abi="4.0")
            return check_plugin.tshark_survives(args, "c.pcapng", must_read)

    def test_a_mark_cut_by_the_chunk_end_is_found(self):
        for cut in range(1, len(b"Dissector bug")):
            output = b"x" * (CHUNK - cut) + b"[Dissector bug, protocol rdmaconf: x]\n"
            failure = self.run_with(output)
            self.assertIsNotNone(failure, cut)
            self.assertEqual(failure.count("Dissector bug"), 1, cut)

    def test_a_mark_in_the_carried_octets_is_found_once(self):
        # Wholly inside the last octets of the first chunk, which the next carries.
        failure = self.run_with(b"x" * (CHUNK - 14) + b"Dissector bug\n" + b"y" * 100)
        self.assertEqual(failure.count("Dissector bug"), 1)
        self.assertLess(len(failure), 400)  # the line around the mark, not the whole line

    def test_frames_are_counted_once_across_chunks(self):
        import io
        from contextlib import redirect_stdout
        for cut in range(0, 9):
            buf = io.StringIO()
            with redirect_stdout(buf):
                self.run_with(b"x" * (CHUNK - cut) + b"\nFrame 1: a\n" + b"\nFrame 2: b\n" * 3)
            self.assertIn(": 4 frames dissected", buf.getvalue(), cut)

    def test_a_crash_is_a_failure_with_the_output_end(self):
        failure = self.run_with(b"x" * 10 + b"last words", returncode=139)
        self.assertIn("exited with 139", failure)
        self.assertIn("last words", failure)

    def test_an_unreadable_file_may_fail_when_not_bound_to_read(self):
        self.assertIsNone(self.run_with(b"tshark: not a capture\n", returncode=2, must_read=False))
        self.assertIsNotNone(self.run_with(b"tshark: not a capture\n", returncode=2, must_read=True))


if __name__ == "__main__":
    unittest.main()
