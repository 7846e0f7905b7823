"""Failures fail the job loudly, naming the file and line; --lenient passes bad lines and reports them."""

import gzip

import pytest

import pidcanon_spark
from conftest import BINARY, read_parts


def corpus_with(tmp_path, bad_line_number, bad_line, total=3000):
    """An N-Triples file of `total` lines whose line `bad_line_number` is `bad_line`."""
    lines = [f"<info:fedora/demo%3a{n}> <http://purl.org/dc/terms/title> \"t{n}\" ." for n in range(1, total + 1)]
    lines[bad_line_number - 1] = bad_line
    path = tmp_path / "in.nt"
    path.write_text("\n".join(lines) + "\n")
    return path


def run_failing(spark, tmp_path, *args, binary=BINARY):
    options = pidcanon_spark.parse_args([*map(str, args), "--output", str(tmp_path / "out"), "--binary", binary, "-q"])
    with pytest.raises(pidcanon_spark.RewriteFailed) as failed:
        pidcanon_spark.run(spark, options)
    return failed.value


def test_strict_syntax_error_fails_with_file_and_line(spark, tmp_path):
    # Line 2500 sits in the last of four partitions: its line number counts the lines before.
    path = corpus_with(tmp_path, 2500, "this is not a statement")
    failed = run_failing(spark, tmp_path, path, "--min-partitions", "4")
    assert failed.status == 2
    assert f"{path.as_uri().replace('file:///', 'file:/')}:2500:1: syntax error" in failed.message
    assert not (tmp_path / "out" / "_SUCCESS").exists()


def test_lenient_passes_the_line_and_reports_it(spark, tmp_path, capsys):
    path = corpus_with(tmp_path, 2500, "this is not a statement")
    options = pidcanon_spark.parse_args([str(path), "--output", str(tmp_path / "out"), "--binary", BINARY, "--lenient", "--min-partitions", "4"])
    summary = pidcanon_spark.run(spark, options)

    lines = read_parts(tmp_path / "out")
    assert len(lines) == 3000 and lines[2499] == "this is not a statement"
    assert lines[0] == '<info:fedora/demo:1> <http://purl.org/dc/terms/title> "t1" .'
    assert summary.as_json()["syntax_errors"] == 1
    assert summary.as_json()["statements_read"] == 2999
    assert ":2500:1: syntax error, passed through unchanged" in capsys.readouterr().err


def test_strict_invalid_identifier_fails_with_status_1(spark, tmp_path):
    path = corpus_with(tmp_path, 10, "<oai:wibble.org:ab%3ccd> <http://p> <http://o> .")
    failed = run_failing(spark, tmp_path, path, "--strict", "--min-partitions", "2")
    assert failed.status == 1
    assert ":10:1: invalid identifier <oai:wibble.org:ab%3ccd>" in failed.message


def test_turtle_syntax_error_names_the_file(spark, tmp_path):
    path = tmp_path / "broken.ttl"
    path.write_text("<http://a> <http://b> <http://c> .\n<http://a> <http://b> .\n")
    failed = run_failing(spark, tmp_path, path)
    assert failed.status == 2
    assert f"{path.as_uri().replace('file:///', 'file:/')}:2:" in failed.message


def test_missing_binary_is_a_clear_error(spark, tmp_path):
    path = corpus_with(tmp_path, 1, "<http://a> <http://b> <http://c> .", total=10)
    failed = run_failing(spark, tmp_path, path, binary="no-such-pidcanon")
    assert "pidcanon binary 'no-such-pidcanon' not found on executor" in failed.message
    assert "--files" in failed.message


def test_missing_input_is_a_clear_error(spark, tmp_path):
    failed = run_failing(spark, tmp_path, tmp_path / "nothing-*.nt")
    assert failed.status == 2 and "no such file or directory" in failed.message


def test_existing_output_directory_is_refused_before_any_work(spark, tmp_path):
    path = corpus_with(tmp_path, 1, "<http://a> <http://b> <http://c> .", total=10)
    (tmp_path / "out").mkdir()
    failed = run_failing(spark, tmp_path, path)
    assert failed.status == 2 and "already exists" in failed.message


def test_whole_file_syntax_error_names_the_file_and_line(spark, tmp_path):
    path = corpus_with(tmp_path, 2500, "this is not a statement")
    gz = tmp_path / "in.nt.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))
    path.unlink()
    failed = run_failing(spark, tmp_path, gz, "--split", "files")
    assert failed.status == 2
    assert f"{gz.as_uri().replace('file:///', 'file:/')}:2500:1: syntax error" in failed.message
