"""The Spark job without and with `--dedup`, side by side, on the same generated corpus in local[2].

    target/venvs/spark/bin/python benches/spark_dedup.py [TRIPLES (default 1000000)] [RUNS (default 3)]

(.ci/spark.sh creates that virtual environment; the binary is $PIDCANON_BIN, else
$CARGO_TARGET_DIR/release/pidcanon, built first.) Prints one Markdown table, medians of RUNS runs alternating the commands: the job
(spark/pidcanon_spark.py) in local[2] on the corpus as one file in 4 partitions of lines
(`--split lines`) and as 4 files given whole to the processes (`--split files`), each without
and with `--dedup`, with the ratio of the two — wall clock and CPU time of the whole Spark side
(driver, JVM, Python workers, pidcanon processes), as benches/spark_compare.py measures them.
The line under the table says how many duplicates `--dedup` dropped (the generated corpus has
some, a few in other spellings).

A second table says where the time of `--dedup` goes (`--split files`): the job with its
`drop_duplicates` cut short — the processes' lines into Spark SQL, keyed and written without a
shuffle (`pidcanon_spark.keyed_lines`); then also shuffled on the key, not aggregated — against
the job without and with `--dedup`.
"""

import os
import statistics
import subprocess
import sys

from spark_compare import DIR, PARTITIONS, REPO, corpus_files, fresh, timed

import pidcanon_spark  # noqa: E402  (spark_compare puts spark/ on the path)

TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(REPO, "target"))
BINARY = os.environ.get("PIDCANON_BIN", os.path.join(TARGET, "release", "pidcanon"))
def cut_short(shuffle):
    """`drop_duplicates` up to its lines keyed (and shuffled on the key), written as they are."""

    def lines_only(spark, blocks, links, partitions):
        lines = pidcanon_spark.keyed_lines(spark, blocks)
        if shuffle:
            lines = lines.repartition(partitions, "key")
        return lines.select(lines.value.cast("string").alias("value")), lambda: 0

    return lines_only


def main():
    triples = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    if "PIDCANON_BIN" not in os.environ:
        subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "pidcanon"], cwd=REPO, check=True)
    corpus, parts = corpus_files(triples)
    size_mb = os.path.getsize(corpus) / 1e6
    out = os.path.join(DIR, "spark-dedup-out")
    spark = pidcanon_spark.local_session("local[2]", "pidcanon spark dedup bench", [("spark.driver.memory", "2g"), ("spark.ui.showConsoleProgress", "false")])
    jvm = spark.sparkContext._gateway.proc.pid
    splits = {
        "lines": [corpus, "--min-partitions", str(PARTITIONS)],
        "files": [parts, "--split", "files"],
    }
    jobs = {
        (split, dedup): pidcanon_spark.parse_args([*inputs, "--output", out, "--binary", BINARY, "-q", *(["--dedup"] if dedup else [])])
        for split, inputs in splits.items()
        for dedup in (False, True)
    }
    stages = {"keyed": cut_short(False), "shuffled": cut_short(True)}
    whole = pidcanon_spark.drop_duplicates
    summaries = {}
    for options in jobs.values():  # warm-up: JVM classes, Python workers
        pidcanon_spark.run(spark, options)
        fresh(out)
    times = {}
    for _ in range(runs):
        for name, options in jobs.items():
            wall_cpu = timed(lambda options=options: summaries.__setitem__(name, pidcanon_spark.run(spark, options)), jvm)
            times.setdefault(name, []).append(wall_cpu)
            fresh(out)
        for name, stage in stages.items():
            pidcanon_spark.drop_duplicates = stage
            times.setdefault(name, []).append(timed(lambda: pidcanon_spark.run(spark, jobs[("files", True)]), jvm))
            pidcanon_spark.drop_duplicates = whole
            fresh(out)
    spark.stop()
    wall = {name: statistics.median(w for w, _ in values) for name, values in times.items()}
    cpu = {name: statistics.median(c for _, c in values) for name, values in times.items()}
    print(f"corpus: {triples:,} statements, {size_mb:.0f} MB of N-Triples; local[2]; median of {runs} runs, alternating, "
          f"on this machine ({os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end)")
    print()
    print("| job in `local[2]` | wall | wall with `--dedup` | ratio | CPU | CPU with `--dedup` | ratio |")
    print("|---" * 7 + "|")
    labels = {"lines": f"`--split lines` (1 file, {PARTITIONS} partitions)", "files": f"`--split files` ({PARTITIONS} files)"}
    for split, label in labels.items():
        plain, dedup = (split, False), (split, True)
        print(f"| {label} | {wall[plain]:.2f} s | {wall[dedup]:.2f} s | {wall[dedup] / wall[plain]:.2f}x | "
              f"{cpu[plain]:.2f} s | {cpu[dedup]:.2f} s | {cpu[dedup] / cpu[plain]:.2f}x |")
    print()
    dropped = {split: summaries[(split, True)].as_json()["duplicates_dropped"] for split in splits}
    print("duplicates dropped by `--dedup`: " + ", ".join(f"{dropped[s]:,} (`--split {s}`)" for s in splits))
    print()
    print(f"| where `--dedup`'s time goes, `--split files` ({PARTITIONS} files) | wall | CPU | CPU over the job without |")
    print("|---" * 4 + "|")
    base = cpu[("files", False)]
    for label, name in (
        ("the job without `--dedup`", ("files", False)),
        ("… its output as lines in Spark SQL, keyed, written (no shuffle)", "keyed"),
        ("… and shuffled on the key (no aggregation)", "shuffled"),
        ("the job with `--dedup` (… and the first line of each key kept)", ("files", True)),
    ):
        print(f"| {label} | {wall[name]:.2f} s | {cpu[name]:.2f} s | {cpu[name] - base:+.2f} s |")


if __name__ == "__main__":
    main()
