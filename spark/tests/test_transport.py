"""How a partition reaches its process and comes back: blocks of whole lines, counted."""

import bz2
import gzip
import io
import subprocess

import pytest

import pidcanon_spark
from pidcanon_spark import Feeder, LineCount, file_chunks, joined_lines, line_blocks


class Chunks(io.RawIOBase):
    """A binary stream that hands out `data` in reads of the given sizes, as a pipe may."""

    def __init__(self, data, sizes):
        self.data, self.sizes = data, list(sizes)

    def readable(self):
        return True

    def read1(self, n=-1):
        size = self.sizes.pop(0) if self.sizes else len(self.data)
        chunk, self.data = self.data[:size], self.data[size:]
        return chunk


@pytest.mark.parametrize("sizes", [[1] * 40, [3, 7, 1, 20], [5, 2], [1000]])
def test_blocks_hold_whole_lines_and_saving_them_gives_the_stream_back(sizes):
    data = b"<a> <b> <c> .\n\n<d> <e> \"\xc3\xa9\" .\nlast without newline"
    blocks = list(line_blocks(Chunks(data, sizes)))
    # saveAsTextFile ends each element with a newline.
    assert b"".join(block + b"\n" for block in blocks) == data + b"\n"
    assert all(not block.endswith(b"\n") for block in blocks)


def test_a_stream_of_whole_lines_comes_back_byte_for_byte():
    data = b"".join(b"<s%d> <p> <o> .\n" % n for n in range(10000))
    blocks = list(line_blocks(Chunks(data, [4096] * 100)))
    assert len(blocks) > 1
    assert b"".join(block + b"\n" for block in blocks) == data


def test_the_feeder_sends_every_line_and_counts_them():
    lines = [b"line %d" % n for n in range(pidcanon_spark.BLOCK_LINES * 2 + 3)]
    proc = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    sent = LineCount()
    feeder = Feeder(proc.stdin, joined_lines(iter(lines), sent))
    feeder.start()
    out = proc.stdout.read()
    feeder.join()
    assert proc.wait() == 0 and feeder.error is None
    assert sent.lines == len(lines) and out == b"\n".join(lines) + b"\n"


@pytest.mark.parametrize("name, compress", [("a.nt", bytes), ("a.nt.gz", gzip.compress), ("a.nt.bz2", bz2.compress)])
@pytest.mark.parametrize("text, lines", [(b"", 0), (b"x\n", 1), (b"x\ny", 2), (b"\n\n", 2)])
def test_a_file_is_fed_decompressed_and_its_lines_counted(name, compress, text, lines):
    data = text * 300000 if text.endswith(b"\n") else text
    count = LineCount()
    assert b"".join(file_chunks(name, compress(data), count)) == data
    assert count.lines == (lines * 300000 if text.endswith(b"\n") else lines)


def test_a_process_that_stops_reading_ends_the_feeding_quietly():
    # `head -n 1` exits after one line: the feeder meets a closed pipe, which is not its error
    # (the job judges the process by its exit status and the line counts).
    lines = (b"x" * 100 for _ in range(200000))
    proc = subprocess.Popen(["head", "-n", "1"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    sent = LineCount()
    feeder = Feeder(proc.stdin, joined_lines(lines, sent))
    feeder.start()
    assert proc.stdout.read() == b"x" * 100 + b"\n"
    feeder.join()
    assert feeder.error is None and sent.lines < 200000


def test_an_input_that_fails_is_the_feeders_error():
    def failing():
        yield b"one"
        raise OSError("the JVM's stream broke")

    proc = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    feeder = Feeder(proc.stdin, joined_lines(failing(), LineCount()))
    feeder.start()
    proc.stdout.read()
    feeder.join()
    proc.wait()
    assert isinstance(feeder.error, OSError)
