"""The job as users run it: spark-submit, the binary shipped with --files, the summary on stderr."""

import os
import shutil
import subprocess
import sys

from conftest import BINARY, HERE, copy_example, read_parts, reference

JOB = os.path.join(os.path.dirname(HERE), "pidcanon_spark.py")


def spark_submit(tmp_path, *args):
    submit = os.path.join(os.path.dirname(sys.executable), "spark-submit")
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "SPARK_LOCAL_IP": "127.0.0.1", "PATH": "/usr/bin:/bin"}
    command = [submit, "--master", "local[2]", "--conf", "spark.driver.host=127.0.0.1", "--conf", "spark.driver.bindAddress=127.0.0.1",
               "--conf", "spark.ui.enabled=false", "--files", BINARY, JOB, *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)


def test_spark_submit_ships_the_binary_and_prints_the_summary(tmp_path):
    nt = copy_example("repository.nt", tmp_path)
    # Not on PATH (PATH is /usr/bin:/bin): the executors find the copy --files shipped.
    assert shutil.which("pidcanon", path="/usr/bin:/bin") is None
    done = spark_submit(tmp_path, nt, "--output", tmp_path / "out", "--dedup", "--min-partitions", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    expected, report = reference("--dedup", nt)
    assert sorted(read_parts(tmp_path / "out")) == sorted(expected)
    # spark-submit merges the Python driver's stderr into its stdout (Spark's PythonRunner).
    assert "pidcanon-spark: 14 statements read, 13 written; 16 IRIs rewritten (fedora-object 7, fedora-dissemination 2, handle 2, doi 3, pdi 2)" in done.stdout
    assert report["statements_written"] == 13


def test_spark_submit_exit_status_and_message_of_a_failed_job(tmp_path):
    bad = tmp_path / "bad.nt"
    bad.write_text("<http://a> <http://b> <http://c> .\n<http://a> <http://b> .\n")
    done = spark_submit(tmp_path, bad, "--output", tmp_path / "out")
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout.rstrip().splitlines()[-1].startswith(f"pidcanon: file:{bad}:2:")
