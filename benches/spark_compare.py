"""The Spark job against the single process, on the same generated corpus, in one run.

    target/venvs/spark/bin/python benches/spark_compare.py [TRIPLES (default 1000000)] [RUNS (default 3)]

(.ci/spark.sh creates that virtual environment.) Prints three Markdown tables, medians of RUNS
runs alternating the commands:

1. `pidcanon rewrite --threads 1/2` against the job (spark/pidcanon_spark.py) in local[1] and
   local[2], input file to output on the same disk;
2. the cost of the pipe itself in local[1]: Spark reading and writing the text alone (JVM
   only), the same through `RDD.pipe` to `cat` (JVM -> Python worker -> process and back), and
   through `RDD.pipe` to `pidcanon rewrite`; the pipe's cost per statement is the difference
   between the first two;
3. the projection to a cluster from these figures (what is measured, what is projected).

The Spark times are those of the job (the driver's wall clock from reading to the last part file
written), without starting the JVM, which a cluster pays once per application.
"""

import os
import shutil
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "spark"))

import pidcanon_spark  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402

BINARY = os.path.join(REPO, "target", "release", "pidcanon")
GEN_CORPUS = os.environ.get("GEN_CORPUS", os.path.join(REPO, "..", "shared", "bench", "gen_corpus.py"))
DIR = os.environ.get("BENCH_DIR", os.path.join(REPO, "target", "bench"))


def timed(action):
    start = time.monotonic()
    action()
    return time.monotonic() - start


def fresh(path):
    shutil.rmtree(path, ignore_errors=True)
    if os.path.exists(path):
        os.remove(path)
    return path


def session(master):
    spark = (
        SparkSession.builder.master(master)
        .appName("pidcanon spark bench")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "2g")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def main():
    triples = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    os.makedirs(DIR, exist_ok=True)
    subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "pidcanon"], cwd=REPO, check=True)
    corpus = os.path.join(DIR, f"corpus-{triples}.nt")
    if not (os.path.exists(corpus) and os.path.getsize(corpus)):
        subprocess.run([sys.executable, GEN_CORPUS, "--triples", str(triples), "--seed", "1", "--format", "nt", "-o", corpus], check=True)
    size_mb = os.path.getsize(corpus) / 1e6
    out = os.path.join(DIR, "spark-bench-out")
    times = {}

    def record(name, seconds):
        times.setdefault(name, []).append(seconds)

    def process(threads):
        command = [BINARY, "rewrite", "-q", "--threads", str(threads), "-o", fresh(out + ".nt"), corpus]
        return timed(lambda: subprocess.run(command, check=True))

    # Partitions: Spark's own split of the file (32 MB blocks on a local disk), at least 4.
    partitions = 4
    for master in ("local[1]", "local[2]"):
        spark = session(master)
        sc = spark.sparkContext
        options = pidcanon_spark.parse_args([corpus, "--output", out, "--binary", BINARY, "-q", "--min-partitions", str(partitions)])
        lines = sc.textFile(corpus, partitions)
        pipe_cat = "cat"
        pipe_pidcanon = f"{BINARY} rewrite -q -i nt --threads 1"
        pidcanon_spark.run(spark, options)  # warm-up: JVM classes, Python workers
        fresh(out)
        for _ in range(runs):
            record(f"process {master}", process(1 if master == "local[1]" else 2))
            fresh(out)
            record(f"job {master}", timed(lambda: pidcanon_spark.run(spark, options)))
            if master == "local[1]":
                for name, rdd in (
                    ("text only", lines),
                    ("pipe cat", lines.pipe(pipe_cat, env={"PATH": "/usr/bin:/bin"}, checkCode=True)),
                    ("pipe pidcanon", lines.pipe(pipe_pidcanon, checkCode=True)),
                ):
                    fresh(out)
                    record(name, timed(lambda rdd=rdd: rdd.saveAsTextFile(out)))
            fresh(out)
        spark.stop()

    med = {name: statistics.median(values) for name, values in times.items()}

    def rate(name):
        return triples / med[name]

    print(f"corpus: {triples:,} statements, {size_mb:.0f} MB of N-Triples, {partitions} partitions; median of {runs} runs on this machine ({os.cpu_count()} cores)")
    print()
    print("| same corpus | wall | MB/s | statements/s | job vs process |")
    print("|---|---|---|---|---|")
    for label, name, base in (
        ("`pidcanon rewrite --threads 1`", "process local[1]", None),
        ("job in `local[1]`", "job local[1]", "process local[1]"),
        ("`pidcanon rewrite --threads 2`", "process local[2]", None),
        ("job in `local[2]`", "job local[2]", "process local[2]"),
    ):
        ratio = f"{med[base] / med[name]:.2f}×" if base else "1.00×"
        print(f"| {label} | {med[name]:.2f} s | {size_mb / med[name]:.0f} | {rate(name):,.0f} | {ratio} |")
    print()
    overhead_ns = (med["pipe cat"] - med["text only"]) / triples * 1e9
    print("| local[1], one core | wall | statements/s |")
    print("|---|---|---|")
    for label, name in (
        ("Spark text in → text out (JVM only)", "text only"),
        ("… through `RDD.pipe` to `cat`", "pipe cat"),
        ("… through `RDD.pipe` to `pidcanon rewrite`", "pipe pidcanon"),
        ("the job (pipe + checks + report)", "job local[1]"),
    ):
        print(f"| {label} | {med[name]:.2f} s | {rate(name):,.0f} |")
    print()
    print(f"pipe overhead (JVM ↔ Python worker ↔ process, both ways): {overhead_ns:.0f} ns per statement (measured)")
    print(f"pidcanon alone, one thread: {1e9 / rate('process local[1]'):.0f} ns per statement (measured)")
    print(f"pipe cost against the process alone: {med['job local[1]'] / med['process local[1]'] - 1:+.0%} (measured, local[1] vs --threads 1)")
    per_core = rate("job local[2]") / 2
    print()
    print(f"per executor core: {per_core:,.0f} statements/s (measured: local[2] on {os.cpu_count()} cores, divided by 2)")
    print(f"projected, 1 billion statements on 100 executor cores: {1e9 / (per_core * 100):.0f} s "
          f"(projected: linear in cores, input already in the cluster's storage, no other load)")
    fresh(out)
    fresh(out + ".nt")


if __name__ == "__main__":
    main()
