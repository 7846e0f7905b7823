"""An input that cannot be read fails the job naming the file and the cause first; a failed
process's message puts its cause first; the module's docstring says what the job does."""

import gzip
import re

import pytest

import pidcanon_spark
from conftest import BINARY


def statements(n, start=1):
    return "".join(f'<info:fedora/demo%3a{i}> <http://purl.org/dc/terms/title> "t{i}" .\n' for i in range(start, start + n)).encode()


def hadoop(path):
    """A local path as Spark's file system names it (`file:/…`)."""
    return path.as_uri().replace("file:///", "file:/")


def run_failing(spark, tmp_path, *args):
    options = pidcanon_spark.parse_args([*map(str, args), "--output", str(tmp_path / "out"), "--binary", BINARY, "-q"])
    with pytest.raises(pidcanon_spark.RewriteFailed) as failed:
        pidcanon_spark.run(spark, options)
    assert not (tmp_path / "out" / "_SUCCESS").exists()
    return failed.value


def cut(data, keep):
    """`data` gzipped and cut short after `keep` of its compressed bytes."""
    return gzip.compress(data)[:keep]


def test_a_truncated_gz_split_into_lines_names_the_file_and_the_cause(spark, tmp_path):
    # Spark's text reader fails in the JVM; the job used to fail with Spark's "Python worker
    # exited unexpectedly (crashed)" and no file.
    data = statements(30000)
    path = tmp_path / "cut.nt.gz"
    path.write_bytes(cut(data, len(gzip.compress(data)) // 2))
    failed = run_failing(spark, tmp_path, path, "--split", "lines")
    assert failed.status == 2
    assert failed.message.startswith(f"pidcanon-spark: {hadoop(path)}: cannot be read: Unexpected end of input stream (EOFException)")
    assert "cut short or corrupt" in failed.message and "crashed" not in failed.message


@pytest.mark.parametrize("members", [1, 2])
def test_a_gzip_member_cut_short_read_whole_is_a_decompression_error_not_a_syntax_error(spark, tmp_path, members):
    # The decompressed part ends in the middle of a line: the process reported a syntax error on
    # that line (a good one in the file), and the decompression error was dropped.
    first, second = statements(20000), statements(20000, start=20001)
    whole = gzip.compress(second if members == 2 else first)
    path = tmp_path / "cut.nt.gz"
    path.write_bytes((gzip.compress(first) if members == 2 else b"") + whole[: len(whole) // 2])
    failed = run_failing(spark, tmp_path, path, "--split", "files")
    assert failed.status == 2
    assert failed.message.startswith(f"pidcanon-spark: {hadoop(path)}: cannot be read: Compressed file ended before the end-of-stream marker was reached (EOFError)")
    assert "syntax error" not in failed.message


def test_a_truncated_turtle_gz_names_the_file_and_the_cause(spark, tmp_path):
    ttl = b"@prefix dct: <http://purl.org/dc/terms/> .\n" + statements(20000).replace(b"<http://purl.org/dc/terms/title>", b"dct:title")
    path = tmp_path / "cut.ttl.gz"
    path.write_bytes(cut(ttl, len(gzip.compress(ttl)) // 2))
    failed = run_failing(spark, tmp_path, path)
    assert failed.status == 2
    assert failed.message.startswith(f"pidcanon-spark: {hadoop(path)}: cannot be read: Compressed file ended before the end-of-stream marker was reached (EOFError)")
    assert "Traceback" not in failed.message


def with_warnings_then_a_syntax_error(tmp_path, warnings):
    """`warnings` invalid identifiers (left unchanged, each a warning), then a syntax error."""
    lines = [f"<oai:wibble.org:ab%3ccd{n}> <http://p> <http://o> ." for n in range(warnings)]
    lines += ["<http://a> <http://b> <http://c> .", "this is not a statement"]
    path = tmp_path / "in.nt"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("split", ["lines", "files"])
@pytest.mark.parametrize("warnings", [3, 30])
def test_a_failures_message_puts_the_cause_first(spark, tmp_path, split, warnings):
    path = with_warnings_then_a_syntax_error(tmp_path, warnings)
    # One partition (the warnings and the error in one process), or the file whole.
    failed = run_failing(spark, tmp_path, path, *(["--min-partitions", "1"] if split == "lines" else ["--split", "files"]))
    said = failed.message.split("\n")
    assert re.fullmatch(rf"pidcanon: {re.escape(hadoop(path))}:{warnings + 2}:1: syntax error.*", said[0]), said[0]
    assert all("invalid identifier" in line for line in said[1 : 1 + min(warnings, 20)])
    if warnings > 20:
        assert said[21:] == [f"… {warnings - 20} more lines"]
    else:
        assert len(said) == warnings + 1


def test_failure_lines_without_a_process_note_last():
    # The transport's own rule, without Spark: the last line is the cause; notes are not counted.
    import os
    import tempfile

    with tempfile.NamedTemporaryFile("w", delete=False, suffix=".stderr") as f:
        f.write("pidcanon: --collapse: 2 equivalence pairs, 1 classes of 3 identifiers\npidcanon: w1\npidcanon: w2\npidcanon: the cause\n")
    try:
        kept, count, _ = pidcanon_spark.read_stderr(f.name)
        assert pidcanon_spark.failure_lines(f.name, kept, count) == ["pidcanon: the cause", "pidcanon: w1", "pidcanon: w2"]
        assert pidcanon_spark.failure_lines(f.name, kept[:1], count) == ["pidcanon: the cause", "pidcanon: w1", "… 1 more lines"]
    finally:
        os.unlink(f.name)


def test_the_module_docstring_describes_the_job_as_it_is():
    doc = pidcanon_spark.__doc__
    # The job runs its processes itself: not RDD.pipe, whose checkCode it no longer uses.
    assert "checkCode" not in doc and "RDD.pipe" not in doc
    for name in re.findall(r"`(\w+)`", doc):
        if name.islower() and "_" in name:
            assert hasattr(pidcanon_spark, name), f"the docstring names {name}, which the module does not have"
    assert "process_output" in doc and "check_lines" in doc
