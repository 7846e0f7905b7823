"""The Spark job against the single process, on the same generated corpus, in one run.

    target/venvs/spark/bin/python benches/spark_compare.py [TRIPLES (default 1000000)] [RUNS (default 3)]

(.ci/spark.sh creates that virtual environment.) Prints three Markdown tables, medians of RUNS
runs alternating the commands:

1. `pidcanon rewrite --threads 1/2` against the job (spark/pidcanon_spark.py) in local[1] and
   local[2], input to output on the same disk: the corpus as 4 files given whole to the
   processes (`--split files`), and as one file in 4 partitions of lines (`--split lines`);
2. where the time goes in local[1]: Spark reading and writing the text in the JVM alone (the
   floor of any job that reads and writes text in Spark); whole files' bytes through a Python
   worker and back as blocks of lines, with no process; the job's transport (to the process in
   blocks, its output back in blocks: `pidcanon_spark.process_output`) to `cat` and to
   `pidcanon rewrite`, for whole files and for partitions of lines; and, for comparison, the
   JVM's own (Scala) `RDD.pipe` and PySpark's `RDD.pipe` (every line through Python one by
   one) to the same binary. The pipe's cost per statement is the transport to `cat` less
   Spark's own text in and out (JVM only);
3. the projection to a cluster from these figures (what is measured, what is projected).

Each figure is given twice: wall clock, and CPU time — of the pidcanon process, or of the whole
Spark side (the driver, the JVM and everything it starts: Python workers, pidcanon or cat
processes). On a machine shared with other work the wall clock measures the neighbours as much
as the job; statements per CPU-second measure the work, and are what an executor core delivers
when it has the core to itself. The Spark times are those of the job (from reading to the last
part file written), without starting the JVM, which a cluster pays once per application.
"""

import io
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "spark"))

import pidcanon_spark  # noqa: E402

BINARY = os.path.join(REPO, "target", "release", "pidcanon")
GEN_CORPUS = os.environ.get("GEN_CORPUS", os.path.join(REPO, "benches", "gen_rdf.py"))
DIR = os.environ.get("BENCH_DIR", os.path.join(REPO, "target", "bench"))


PARTITIONS = 4


def corpus_files(triples):
    """The corpus as one file (generated once), and the same lines as PARTITIONS files in a
    directory, for --split files."""
    os.makedirs(DIR, exist_ok=True)
    corpus = os.path.join(DIR, f"gen_rdf-{triples}.nt")
    if not (os.path.exists(corpus) and os.path.getsize(corpus)):
        subprocess.run([sys.executable, GEN_CORPUS, "--triples", str(triples), "--seed", "1", "--format", "nt", "-o", corpus], check=True)
    parts = os.path.join(DIR, f"gen_rdf-{triples}-parts")
    if not os.path.isdir(parts):
        os.makedirs(parts)
        with open(corpus, "rb") as f:
            lines = f.readlines()
        for i in range(PARTITIONS):
            with open(os.path.join(parts, f"part-{i}.nt"), "wb") as f:
                f.writelines(lines[i * len(lines) // PARTITIONS : (i + 1) * len(lines) // PARTITIONS])
    return corpus, parts


def tree_cpu(root):
    """CPU seconds used so far by process `root` and its descendants (with their reaped children)."""
    ticks = os.sysconf("SC_CLK_TCK")
    parent, cpu = {}, {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue  # ended meanwhile
            parent[int(entry)] = int(fields[1])
            cpu[int(entry)] = sum(int(x) for x in fields[11:15]) / ticks  # utime stime cutime cstime
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        total += cpu.get(pid, 0.0)
        todo += [child for child, p in parent.items() if p == pid]
    return total


def own_cpu():
    self, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return self.ru_utime + self.ru_stime + children.ru_utime + children.ru_stime


def timed(action, jvm=None):
    """(wall seconds, CPU seconds) of `action`: this process and its reaped children, plus the
    JVM's process tree if given."""
    cpu = own_cpu() + (tree_cpu(jvm) if jvm else 0.0)
    start = time.monotonic()
    action()
    wall = time.monotonic() - start
    return wall, own_cpu() + (tree_cpu(jvm) if jvm else 0.0) - cpu


def fresh(path):
    shutil.rmtree(path, ignore_errors=True)
    if os.path.exists(path):
        os.remove(path)
    return path


def through(command):
    """A partition's lines through one `command` process the job's way (`--split lines`)."""

    def partition(lines):
        workdir = tempfile.mkdtemp(prefix="pidcanon-bench-")
        blocks = pidcanon_spark.joined_lines(lines, pidcanon_spark.LineCount())
        yield from pidcanon_spark.process_output(command, workdir, "bench", lambda block: block, blocks=blocks)
        shutil.rmtree(workdir, ignore_errors=True)

    return partition


def whole(command):
    """A file's bytes through one `command` process the job's way (`--split files`)."""

    def file(record):
        path, data = record
        workdir = tempfile.mkdtemp(prefix="pidcanon-bench-")
        blocks = pidcanon_spark.file_chunks(path, data, pidcanon_spark.LineCount())
        yield from pidcanon_spark.process_output(command, workdir, "bench", lambda block: block, blocks=blocks)
        shutil.rmtree(workdir, ignore_errors=True)

    return file


def as_blocks(record):
    """A file's bytes as blocks of whole lines, each without its last newline, as the job's
    transport passes a process's output on; no process."""
    yield from pidcanon_spark.line_blocks(io.BytesIO(record[1]))


def main():
    triples = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "pidcanon"], cwd=REPO, check=True)
    # Partitions: Spark's own split of the file (32 MB blocks on a local disk), at least 4; for
    # --split files, the same lines in 4 files.
    corpus, parts = corpus_files(triples)
    partitions = PARTITIONS
    size_mb = os.path.getsize(corpus) / 1e6
    out = os.path.join(DIR, "spark-bench-out")
    times = {}

    def record(name, wall_cpu):
        times.setdefault(name, []).append(wall_cpu)

    def process(threads):
        command = [BINARY, "rewrite", "-q", "--threads", str(threads), "-o", fresh(out + ".nt"), corpus]
        return timed(lambda: subprocess.run(command, check=True))

    for master in ("local[1]", "local[2]"):
        spark = pidcanon_spark.local_session(master, "pidcanon spark bench", [("spark.driver.memory", "2g"), ("spark.ui.showConsoleProgress", "false")])
        sc = spark.sparkContext
        jvm = sc._gateway.proc.pid
        options = pidcanon_spark.parse_args([corpus, "--output", out, "--binary", BINARY, "-q", "--min-partitions", str(partitions)])
        options_files = pidcanon_spark.parse_args([parts, "--output", out, "--binary", BINARY, "-q", "--split", "files"])
        lines = sc.textFile(corpus, partitions)
        byte_lines = sc.textFile(corpus, partitions, use_unicode=False)
        pipe_pidcanon = f"{BINARY} rewrite -q -i nt --threads 1"
        pidcanon_spark.run(spark, options)  # warm-up: JVM classes, Python workers
        fresh(out)
        for _ in range(runs):
            record(f"process {master}", process(1 if master == "local[1]" else 2))
            fresh(out)
            record(f"job {master}", timed(lambda: pidcanon_spark.run(spark, options), jvm))
            fresh(out)
            record(f"job files {master}", timed(lambda: pidcanon_spark.run(spark, options_files), jvm))
            if master == "local[1]":
                jvm_lines = sc._jsc.textFile(corpus, partitions).rdd()  # no Python on the data path
                for name, save in (
                    ("jvm text only", jvm_lines.saveAsTextFile),
                    ("jvm pipe pidcanon", jvm_lines.pipe(pipe_pidcanon).saveAsTextFile),
                    ("files bytes", sc.binaryFiles(parts, partitions).flatMap(as_blocks).saveAsTextFile),
                    ("files cat", sc.binaryFiles(parts, partitions).flatMap(whole(["cat"])).saveAsTextFile),
                    ("blocks cat", byte_lines.mapPartitions(through(["cat"])).saveAsTextFile),
                    ("blocks pidcanon", byte_lines.mapPartitions(through(pipe_pidcanon.split())).saveAsTextFile),
                    ("pipe pidcanon", lines.pipe(pipe_pidcanon, checkCode=True).saveAsTextFile),
                ):
                    fresh(out)
                    record(name, timed(lambda save=save: save(out), jvm))
            fresh(out)
        spark.stop()

    wall = {name: statistics.median(w for w, _ in values) for name, values in times.items()}
    cpu = {name: statistics.median(c for _, c in values) for name, values in times.items()}

    def row(label, name):
        return (f"| {label} | {wall[name]:.2f} s | {triples / wall[name]:,.0f} | {cpu[name]:.2f} s | "
                f"{triples / cpu[name]:,.0f} | {cpu[name] / triples * 1e9:,.0f} ns |")

    def table(title, rows):
        print(f"| {title} | wall | statements/s | CPU | statements per CPU-second | CPU per statement |")
        print("|---" * 6 + "|")
        for label, name in rows:
            print(row(label, name))
        print()

    print(f"corpus: {triples:,} statements, {size_mb:.0f} MB of N-Triples, {partitions} partitions; "
          f"median of {runs} runs, alternating, on this machine ({os.cpu_count()} cores, load average "
          f"{os.getloadavg()[0]:.1f} at the end)")
    print()
    table("same corpus", (
        ("`pidcanon rewrite --threads 1`", "process local[1]"),
        ("job in `local[1]`, `--split files` (4 files)", "job files local[1]"),
        ("job in `local[1]`, `--split lines` (4 partitions)", "job local[1]"),
        ("`pidcanon rewrite --threads 2`", "process local[2]"),
        ("job in `local[2]`, `--split files` (4 files)", "job files local[2]"),
        ("job in `local[2]`, `--split lines` (4 partitions)", "job local[2]"),
    ))
    table("local[1]", (
        ("Spark text in → text out, JVM only (Spark's own floor)", "jvm text only"),
        ("whole files: Spark's bytes → Python worker → blocks of lines → text out, no process", "files bytes"),
        ("… through the job's transport to `cat`", "files cat"),
        ("… through the job's transport (Python worker, blocks) to `cat`", "blocks cat"),
        ("… through the job's transport to `pidcanon rewrite`", "blocks pidcanon"),
        ("the job (transport + checks + report)", "job local[1]"),
        ("for comparison: the JVM's `RDD.pipe` to `pidcanon rewrite`", "jvm pipe pidcanon"),
        ("for comparison: PySpark's `RDD.pipe` (line by line) to `pidcanon rewrite`", "pipe pidcanon"),
    ))
    alone_ns = cpu["process local[1]"] / triples * 1e9
    files_ns = (cpu["files cat"] - cpu["jvm text only"]) / triples * 1e9
    floor_ns = cpu["jvm text only"] / triples * 1e9
    lines_pipe_ns = (cpu["blocks cat"] - cpu["jvm text only"]) / triples * 1e9
    job_ns = cpu["job files local[1]"] / triples * 1e9
    per_core = triples / cpu["job files local[2]"]
    print(f"measured: the pipe with --split files (Spark's bytes -> Python worker -> process -> Python worker -> "
          f"JVM, cat's own work included), beyond Spark's own text reading and writing ({floor_ns:,.0f} ns), costs "
          f"{files_ns:,.0f} ns of CPU per statement, {files_ns / alone_ns:.0%} of pidcanon alone ({alone_ns:,.0f} ns); "
          f"the whole job {job_ns:,.0f} ns, {job_ns / alone_ns:.1f}x the process alone (CPU, local[1]); best case for "
          f"any pipe: Spark's floor + the process = {floor_ns + alone_ns:,.0f} ns")
    print(f"measured: with --split lines, the pipe beyond Spark's own text reading and writing costs "
          f"{lines_pipe_ns:,.0f} ns per statement")
    print(f"measured: wall clock, job (--split files) against process: {wall['process local[1]'] / wall['job files local[1]']:.2f}x in local[1], "
          f"{wall['process local[2]'] / wall['job files local[2]']:.2f}x in local[2]")
    print(f"measured: one executor core = {per_core:,.0f} statements per CPU-second (job in local[2], --split files, all its processes)")
    print(f"projected: 1 billion statements on 100 executor cores = {1e9 / (per_core * 100):,.0f} s "
          f"(= 1e9 / (that rate x 100): linear in cores, each core to itself, input in the cluster's storage, "
          f"no stragglers; not measured)")
    fresh(out)
    fresh(out + ".nt")


if __name__ == "__main__":
    main()
