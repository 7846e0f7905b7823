"""Run `pidcanon rewrite` on Apache Spark.

    spark-submit [spark options] spark/pidcanon_spark.py INPUT... --output DIR \
        [--to nt|nq] [--binary PATH] [rewrite options]

N-Triples and N-Quads inputs (plain, .gz or .bz2) are either read with Spark's text reader and
split into partitions of lines (`--split lines`), or read whole, one file per process (`--split
files`, decompressed in the Python worker); `--split auto` picks one. Each partition or file goes
through one `pidcanon rewrite` process as one stream, run by the job itself
(`process_output`: its stdin fed blocks of 4,096 lines from a thread, its stdout passed on as
blocks of whole lines, its stderr and `--report json` kept in a directory of its own). A
partition fails when its process exits non-zero (with the process's message, the cause first and
`<stdin>:LINE` turned into `FILE:LINE`), when it did not write as many lines as it was given
(`check_lines`), or when its input cannot be read (a `.gz` cut short: the file and the
decompression error). Turtle, TriG and RDF/XML files do not split on lines: each goes whole
through one process, which names it in its messages. `--dedup` is a shuffle on the fingerprint
of each statement, which the processes write before its line (`pidcanon rewrite
--fingerprints`), in Spark SQL; `--map`/`--links` are de-duplicated across partitions, and the
per-partition reports are summed into one summary.
`--collapse` computes the equivalence classes of the whole input first, on the driver or, for
many equivalence statements, on the cluster (connected components by iterative joins); each
process then writes the links from the representatives of the members its input named at the
end of its output, and the job gathers those of all processes (`gathered_links`: each once,
sorted as the binary sorts them) and writes them after the rest.
The design and its limits are in docs/spark.md.

Used from Python (the tests do):

    options = parse_args(["in.nt", "--output", "out", "--binary", "/usr/bin/pidcanon"])
    summary = run(spark, options)   # raises RewriteFailed with the binary's message
    print(summary.text())
"""

import argparse
import bz2
import glob
import hashlib
import gzip
import io
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
import zlib
from collections import Counter
from functools import partial
from itertools import islice

from pyspark import SparkFiles, StorageLevel, cloudpickle
from pyspark.accumulators import AccumulatorParam

LINE_FORMATS = {"nt": "nt", "ntriples": "nt", "application/n-triples": "nt", "nq": "nq", "nquads": "nq", "application/n-quads": "nq"}
GRAPH_FORMATS = {"nq", "nquads", "application/n-quads", "trig", "application/trig"}
OPENERS = {".gz": gzip.open, ".bz2": bz2.open}  # readers that decompress
# The order of kinds in `pidcanon rewrite`'s summary; kinds it adds later follow, sorted.
KIND_ORDER = ["fedora-object", "fedora-dissemination", "oai", "poi", "handle", "doi", "pdi"]
DIAGNOSTICS_KEPT = 20  # per partition; the rest are counted
FAILURE_MARKER = "pidcanon-spark-failure "
STDIN_POSITION = re.compile(r"<stdin>:(\d+):(\d+)")
# What a process says about the whole run rather than a line: the job says it once instead.
PROCESS_NOTE = re.compile(r"pidcanon: (--collapse: |\d+ reflexive equivalence statements? dropped)")
SAME_AS = "http://www.w3.org/2002/07/owl#sameAs"
# What a process of --collapse says of the equivalence statements it did not write in place and
# of the links it wrote at the end of its output instead (its --report json does not have these
# counts: they are read from this note when the report lacks them).
LINKS_NOTE = re.compile(r"pidcanon: --collapse: (\d+) equivalence statements within classes written as (\d+) links")
LINKED, LINKS_WRITTEN = "equivalence_statements_linked", "equivalence_links_written"
LINK = "equivalence-link"  # the tag of a link line `<rep> P <member> [graph] .` in a process's output
# --classes auto: the most equivalence statements gathered on the driver (about 200 bytes each
# with their classes: 400 MB; docs/spark.md).
DRIVER_MAX_EQUIVALENCES = 2_000_000


class RewriteFailed(Exception):
    """The job failed: `message` names the input and where; `status` is the exit status."""

    def __init__(self, message, status):
        super().__init__(message)
        self.message = message
        self.status = status


# ---------------------------------------------------------------------------------------------
# Options


def parse_args(argv):
    """The job's options: those of `pidcanon rewrite` that make sense on a cluster, plus Spark's."""
    p = argparse.ArgumentParser(
        prog="pidcanon_spark.py",
        description="Rewrite RDF with pidcanon on Spark; output as part files in DIR.",
    )
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="files, directories or globs (Hadoop paths)")
    p.add_argument("--output", required=True, metavar="DIR", help="output directory (must not exist)")
    p.add_argument("--to", choices=["nt", "nq"], help="output format [default: nq if an input is N-Quads or TriG, else nt]")
    p.add_argument("--binary", default="pidcanon", help="the pidcanon binary on the executors: a name shipped with --files, a path, or a name on PATH [default: pidcanon]")
    p.add_argument("-i", "--input-format", help="input format of every input (nt, nq, ttl, trig, rdfxml) [default: from each file's name]")
    p.add_argument("--split", choices=["auto", "lines", "files"], default="auto", help="N-Triples/N-Quads: split files into partitions of lines (Spark's text reader), or give each file whole to one process (faster: no line handled on its own in Python) [default: auto: files when there are at least as many files as Spark's default parallelism and none is over 1 GB]")
    p.add_argument("--min-partitions", type=int, help="minimum number of partitions of the N-Triples/N-Quads input (implies --split lines) [default: Spark's]")
    p.add_argument("--compression", choices=["gzip", "bzip2"], help="compress the part files")
    p.add_argument("--dedup", action="store_true", help="drop duplicate statements across the whole input (a shuffle)")
    p.add_argument("--map", metavar="DIR", help="write `original<TAB>canonical<TAB>kind`, once per rewritten IRI, as part files in DIR")
    p.add_argument("--links", metavar="DIR", help="write `<original> owl:sameAs <canonical> .`, once per rewritten IRI, as part files in DIR")
    p.add_argument("--report", choices=["json"], help="print the summary as JSON on stderr")
    p.add_argument("-q", "--quiet", action="store_true", help="no summary and no diagnostics")
    p.add_argument("--collapse", action="store_true", help="collapse equivalent IRIs onto one representative per class across the whole input (classes computed on the driver or the cluster, see --classes; docs/spark.md)")
    p.add_argument("--equivalence-predicate", action="append", default=[], metavar="IRI", help="another predicate whose statements assert equivalence (repeatable; with --collapse)")
    p.add_argument("--max-class", type=int, default=1000, metavar="N", help="refuse classes larger than N, reporting them [default: 1000]")
    p.add_argument("--allow-large-classes", action="store_true", help="collapse classes larger than --max-class anyway")
    p.add_argument("--drop-reflexive", action="store_true", help="drop equivalence statements whose two sides become one IRI")
    p.add_argument("--classes", choices=["auto", "driver", "cluster"], help="where the classes are computed: on the driver (the equivalence statements collected there, one union-find), on the cluster (connected components by iterative joins; nothing collected), or auto: the driver up to --driver-max-equivalences equivalence statements, the cluster above [default: auto; with --collapse]")
    p.add_argument("--driver-max-equivalences", type=int, metavar="N", help=f"with --classes auto, the most equivalence statements the driver takes [default: {DRIVER_MAX_EQUIVALENCES}]")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--lenient", action="store_true", help="pass lines with syntax errors through and report them")
    mode.add_argument("--strict", action="store_true", help="make an invalid identifier fail the job")
    # Passed to `pidcanon rewrite` unchanged.
    p.add_argument("--base", metavar="IRI")
    p.add_argument("--policy", metavar="FILE", help="policy TOML, read on the driver and shipped to the executors by the job")
    p.add_argument("--poi-oai", choices=["keep", "poi", "oai"])
    p.add_argument("--fedora-base", action="append", default=[], metavar="URL")
    p.add_argument("--handle-resolver", action="append", default=[], metavar="URL-PREFIX")
    p.add_argument("--handle-form", choices=["hdl", "https"])
    p.add_argument("--doi-form", choices=["https", "hdl"])
    options = p.parse_args(argv)
    if options.min_partitions is not None and options.min_partitions < 1:
        p.error("--min-partitions must be at least 1")
    if options.min_partitions is not None and options.split == "files":
        p.error("--min-partitions splits files into lines: not with --split files")
    if not options.collapse and (options.equivalence_predicate or options.allow_large_classes or options.drop_reflexive or options.classes or options.driver_max_equivalences is not None):
        p.error("--equivalence-predicate, --allow-large-classes, --drop-reflexive, --classes and --driver-max-equivalences need --collapse")
    if options.driver_max_equivalences is not None and options.driver_max_equivalences < 0:
        p.error("--driver-max-equivalences must be at least 0")
    options.classes = options.classes or "auto"
    if options.driver_max_equivalences is None:
        options.driver_max_equivalences = DRIVER_MAX_EQUIVALENCES
    return options


def rewrite_args(options):
    """The arguments every `pidcanon rewrite` process gets (besides input, output, policy and
    report)."""
    return [f"--{mode}" for mode in ("lenient", "strict") if getattr(options, mode)] + policy_args(options)


def policy_args(options):
    """The options that decide canonical forms, passed to every process unchanged."""
    args = []
    for flag, value in (
        ("--base", options.base),
        ("--poi-oai", options.poi_oai),
        ("--handle-form", options.handle_form),
        ("--doi-form", options.doi_form),
    ):
        if value is not None:
            args += [flag, value]
    for url in options.fedora_base:
        args += ["--fedora-base", url]
    for url in options.handle_resolver:
        args += ["--handle-resolver", url]
    return args


# ---------------------------------------------------------------------------------------------
# Inputs


def list_inputs(sc, patterns):
    """Expand globs and directories with Hadoop's file system, as Spark's readers do.

    Files whose names start with `_` or `.` inside a directory (`_SUCCESS`, `.crc`) are skipped,
    as Hadoop's input formats skip them. A pattern that matches nothing is an error."""
    jvm = sc._jvm
    conf = sc._jsc.hadoopConfiguration()
    files = []
    for pattern in patterns:
        path = jvm.org.apache.hadoop.fs.Path(pattern)
        fs = path.getFileSystem(conf)
        matches = fs.globStatus(path) or []
        if not matches:
            raise RewriteFailed(f"pidcanon-spark: {pattern}: no such file or directory", 2)
        for status in matches:
            if status.isDirectory():
                children = sorted(s.getPath().toString() for s in fs.listStatus(status.getPath()) if s.isFile())
                files += [c for c in children if not os.path.basename(c).startswith(("_", "."))]
            else:
                files.append(status.getPath().toString())
    for f in files:
        if "," in f:
            raise RewriteFailed(f"pidcanon-spark: {f}: a path with ',' cannot be read (Spark's text reader splits paths on ',')", 2)
    return files


def check_outputs(sc, directories):
    """Fail before any work if an output directory exists, as Spark would after the work."""
    conf = sc._jsc.hadoopConfiguration()
    for directory in directories:
        path = sc._jvm.org.apache.hadoop.fs.Path(directory)
        if path.getFileSystem(conf).exists(path):
            raise RewriteFailed(f"pidcanon-spark: {directory}: already exists (Spark does not overwrite an output directory)", 2)


def split_compression(name):
    """(`name` without .gz/.bz2, that suffix or "")."""
    for suffix in OPENERS:
        if name.endswith(suffix):
            return name[: -len(suffix)], suffix
    return name, ""


def line_format(path, forced):
    """"nt" or "nq" if `path` is read line by line, else None (the file goes whole to pidcanon)."""
    if forced:
        return LINE_FORMATS.get(forced)
    stem, _ = split_compression(os.path.basename(path))
    return LINE_FORMATS.get(stem.rsplit(".", 1)[-1].lower()) if "." in stem else None


def default_output_format(paths, forced):
    """nq if any input can hold named graphs (N-Quads, TriG), else nt."""
    for path in paths:
        fmt = forced or split_compression(os.path.basename(path))[0].rsplit(".", 1)[-1].lower()
        if fmt in GRAPH_FORMATS:
            return "nq"
    return "nt"


# ---------------------------------------------------------------------------------------------
# Per-partition reports, summed on the driver


class PartitionReports(AccumulatorParam):
    """Accumulates {partition key: report}. A re-run task replaces its entry instead of adding
    to it, so the sum stays right even when Spark recomputes a partition."""

    def zero(self, value):
        return {}

    def addInPlace(self, a, b):
        a.update(b)
        return a


def read_stderr(path):
    """The binary's stderr: (first diagnostics, number of diagnostics, the JSON report or None)."""
    kept, count, report, links = [], 0, None, None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("{"):
                report = json.loads(line)
                continue
            if PROCESS_NOTE.match(line):
                if (m := LINKS_NOTE.match(line)) is not None:
                    links = int(m.group(1)), int(m.group(2))
                continue
            count += 1
            if len(kept) < DIAGNOSTICS_KEPT:
                kept.append(line)
    if report is not None:
        # The binary prints the note only when either count is not 0.
        linked, written = links or (0, 0)
        report.setdefault(LINKED, linked)
        report.setdefault(LINKS_WRITTEN, written)
    return kept, count, report


def failure_lines(path, kept, count):
    """A failed process's message, the cause first: its last line, which says why it stopped;
    then the diagnostics before it that were kept (warnings such as invalid identifiers left
    unchanged, a `--max-class` report's details), and how many more there were."""
    last = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if not line.startswith("{"):
                last = line.rstrip("\n")
    if last is None:
        return kept
    if kept and len(kept) == count and kept[-1] == last:
        rest, hidden = kept[:-1], 0
    else:
        rest, hidden = kept, count - len(kept) - (PROCESS_NOTE.match(last) is None)
    return [last, *rest] + ([f"… {hidden} more lines"] if hidden > 0 else [])


def find_binary(name):
    """The executable to run on this executor: shipped with --files, a path, or on PATH."""
    tried = []
    shipped = SparkFiles.get(os.path.basename(name))
    for candidate in (shipped, os.path.abspath(name), shutil.which(name)):
        if candidate and candidate not in tried:
            tried.append(candidate)
            if os.path.isfile(candidate):
                if not os.access(candidate, os.X_OK):
                    raise failure(None, 2, f"pidcanon binary {candidate} on executor {socket.gethostname()} is not executable")
                return candidate
    raise failure(
        None,
        2,
        f"pidcanon binary {name!r} not found on executor {socket.gethostname()}: tried "
        + ", ".join(tried)
        + " (ship it with spark-submit --files, or install it on the executors' PATH)",
    )


def finish_process(directory, side_files, reports, key, stderr, lines):
    """Yield a finished process's --map/--links lines, tagged with their kind; then record its
    report and remove its directory."""
    for kind in side_files:
        with open(os.path.join(directory, kind), encoding="utf-8") as f:
            for line in f:
                yield (kind, line.rstrip("\n"))
    shutil.rmtree(directory, ignore_errors=True)
    kept, count, report = stderr
    reports.add({key: {"report": report, "diagnostics": kept, "diagnostic_count": count, "lines": lines}})


def tagged(side_files, links_at_end=False, numbered=None):
    """How output blocks travel: bare, or tagged "d" beside the --map/--links lines and the
    link lines of --collapse (tagged LINK); with --dedup, each as `numbered` gives it."""
    inner = numbered or (lambda block: block)
    return (lambda block: ("d", inner(block))) if side_files or links_at_end else inner


class Numbered:
    """--dedup: a process's output blocks (lines `FINGERPRINT<TAB>line`, `pidcanon rewrite
    --fingerprints`) with where they stand in the job's input, for `drop_duplicates` to keep
    the first line of each statement: (the input's number, the partition of that input, the
    number of the block's first line among the process's, the block's lines as bytes — cut
    by `bytes.split`, no line handled on its own in Python). A block that is not UTF-8 (a line
    passed through by --lenient) fails the job: Spark SQL's text would not keep its bytes."""

    def __init__(self, path, number, partition):
        self.path, self.number, self.partition, self.lines = path, number, partition, 0

    def __call__(self, block):
        try:
            block.decode("utf-8")
        except UnicodeDecodeError as e:
            message = f"pidcanon-spark: {self.path}: --dedup: a line is not UTF-8 ({e.reason} at byte {e.start} of a block of output); without --dedup it passes through as its bytes"
            raise failure(None, 2, message) from None
        first = self.lines
        lines = block.split(b"\n")
        self.lines += len(lines)
        return self.number, self.partition, first, lines


def failure(partition, status, message):
    """An exception whose text carries a marker the driver finds in Spark's job error.
    `partition` is "nt 3" (its <stdin> positions are turned into file positions), "file PATH"
    or None."""
    payload = json.dumps({"partition": partition, "status": status, "message": message})
    return RuntimeError(FAILURE_MARKER + payload)


# ---------------------------------------------------------------------------------------------
# One pidcanon process, fed and read in blocks of lines

# PySpark's `RDD.pipe` writes, reads, decodes and re-encodes every line in Python, which costs
# more than pidcanon's own work on it (docs/spark.md has the figures). So the job runs each
# process itself, as `RDD.pipe` does (one process per partition, one stream, the exit status
# checked like `checkCode=True`), but hands it many lines per write and passes its output on
# as blocks of whole lines: a block is one element of the output RDD, and `saveAsTextFile`,
# which ends each element with a newline, writes exactly the lines the process wrote.
BLOCK_LINES = 4096  # input lines per write to a process
READ_SIZE = 1 << 20  # bytes of a process's output read at a time
POLICY_FILE = "policy.toml"
CLASSES_FILE = "classes.tsv"
# Files written next to every process, and the option that names them.
CLASSES_PARTS = "classes-parts"  # the classes table computed on the cluster (ShippedParts)
SHIPPED_FILES = {POLICY_FILE: "--policy", CLASSES_FILE: "--equivalences", CLASSES_PARTS: "--equivalences"}


class Feeder(threading.Thread):
    """Writes `blocks` (bytes) to a process's stdin, then closes it. `error` is what stopped
    the writing, unless the process stopped reading (then its exit status says why)."""

    def __init__(self, stdin, blocks):
        super().__init__(daemon=True)
        self.stdin, self.blocks, self.error = stdin, blocks, None

    def run(self):
        try:
            for block in self.blocks:
                self.stdin.write(block)
        except BrokenPipeError:
            pass
        except BaseException as e:  # the input failed: the process saw a short input
            self.error = e
        finally:
            try:
                self.stdin.close()
            except BrokenPipeError:
                pass


class LineCount:
    """The number of lines a process has been given, counted as they are handed over."""

    def __init__(self):
        self.lines = 0


def joined_lines(lines, count):
    """`lines` (bytes without their newline) as blocks of BLOCK_LINES lines, each line ended."""
    while block := list(islice(lines, BLOCK_LINES)):
        count.lines += len(block)
        block.append(b"")
        yield b"\n".join(block)


def file_chunks(name, data, count):
    """The bytes of file `name` (decompressed if it is .gz or .bz2) in chunks of READ_SIZE;
    its lines counted, a last line without a newline included. A file that does not decompress
    (cut short, corrupt) fails its partition with the file's name and the decompressor's
    error, whatever was already handed on."""
    suffix = split_compression(name)[1]
    stream = OPENERS[suffix](io.BytesIO(data)) if suffix else io.BytesIO(data)
    last = b"\n"
    while True:
        try:
            chunk = stream.read(READ_SIZE)
        except (EOFError, OSError, zlib.error) as e:  # gzip.BadGzipFile is an OSError
            raise failure("file " + name, 2, unreadable(name, f"{e} ({type(e).__name__})")) from None
        if not chunk:
            break
        count.lines += chunk.count(b"\n")
        last = chunk[-1:]
        yield chunk
    count.lines += last != b"\n"


def unreadable(path, cause):
    """The message of an input that cannot be read: the file and the cause first."""
    hint = " (the compressed file is cut short or corrupt)" if split_compression(path)[1] else ""
    return f"pidcanon-spark: {path}: cannot be read: {cause}{hint}"


def line_blocks(stream):
    """The content of a binary stream as blocks of whole lines, each without its last newline."""
    tail = b""
    while chunk := stream.read1(READ_SIZE):
        cut = chunk.rfind(b"\n")
        if cut < 0:
            tail += chunk
            continue
        yield tail + chunk[:cut] if tail else chunk[:cut]
        tail = chunk[cut + 1 :]
    if tail:
        yield tail


class ShippedParts:
    """Part files in a directory shipped to every executor with `SparkContext.addFile(dir,
    recursive=True)`: the classes table computed on the cluster. Each process gets every part."""

    def __init__(self, name):
        self.name = name  # the directory's name, as SparkFiles knows it

    def paths(self):
        directory = SparkFiles.get(self.name)
        parts = sorted(glob.glob(os.path.join(directory, "part-*")))
        if not parts:
            raise failure(None, 2, f"pidcanon-spark: the classes table {self.name} did not reach executor {socket.gethostname()} ({directory})")
        return parts


def file_url(path):
    """A Spark path as an IRI: Hadoop's `file:/a/b` as `file:///a/b`, any other as it is."""
    if path.startswith("file:/") and not path.startswith("file:///"):
        return "file:///" + path[len("file:/") :].lstrip("/")
    return path


def process_directory(files):
    """A fresh directory for one pidcanon process's side files, holding `files` ({name: a
    broadcast text, or ShippedParts already on the executor})."""
    path = tempfile.mkdtemp(prefix="pidcanon-spark-")
    for name, text in files.items():
        if not isinstance(text, ShippedParts):
            with open(os.path.join(path, name), "w", encoding="utf-8") as f:
                f.write(text.value)
    return path


def shipped_args(workdir, files):
    """The options that give a process `files` (written in `workdir` or shipped as parts):
    `--policy FILE`, `--equivalences FILE`…"""
    args = []
    for name, source in files.items():
        paths = source.paths() if isinstance(source, ShippedParts) else [os.path.join(workdir, name)]
        args += [a for path in paths for a in (SHIPPED_FILES[name], path)]
    return args


def process_command(binary, workdir, args, side_files, files):
    """`pidcanon rewrite ARGS --report json`, with the side files of `workdir` (--map, --links,
    and the `files` written there: the policy, the equivalence classes)."""
    command = [find_binary(binary), "rewrite", *args, "--report", "json"]
    for kind in side_files:
        command += [f"--{kind}", os.path.join(workdir, kind)]
    return command + shipped_args(workdir, files)


def process_output(command, workdir, key, tag, blocks=None, rename=None, links_at_end=False):
    """Run `command` with `blocks` on its stdin (or nothing) and its stderr in `workdir`; yield
    its output as tagged blocks. Returns ((kept diagnostics, their count, the JSON report),
    lines received). A process that exits with an error raises a failure with its
    diagnostics, `rename` = (what a message calls the input, its path) applied to them.

    `links_at_end` (a process of --collapse): the process writes the links of the class
    members its input named after the rest of its output, and says how many only when it
    ends; so its output goes to a file in `workdir`, and once it has ended the last
    `equivalence_links_written` lines are yielded one by one as (LINK, line), the lines before
    them as tagged blocks."""
    stderr_path = os.path.join(workdir, "stderr")
    stdout_path = os.path.join(workdir, "stdout")
    with open(stderr_path, "wb") as err:
        stdin = subprocess.DEVNULL if blocks is None else subprocess.PIPE
        if links_at_end:
            with open(stdout_path, "wb") as out:
                proc = subprocess.Popen(command, stdin=stdin, stdout=out, stderr=err)
        else:
            proc = subprocess.Popen(command, stdin=stdin, stdout=subprocess.PIPE, stderr=err)
    feeder = None if blocks is None else Feeder(proc.stdin, blocks)
    received = 0
    try:
        if feeder is not None:
            feeder.start()
        if not links_at_end:
            for block in line_blocks(proc.stdout):
                received += block.count(b"\n") + 1
                yield tag(block)
        status = proc.wait()
    finally:
        if proc.poll() is None:  # the task was cancelled or failed while reading
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
        if feeder is not None:
            feeder.join()
    kept, count, report = read_stderr(stderr_path)
    if feeder is not None and feeder.error is not None:
        # The input failed (a .gz cut short): that is the cause, whatever the process made of
        # the short input it saw (a syntax error on a line cut in two, or nothing at all).
        shutil.rmtree(workdir, ignore_errors=True)
        raise feeder.error
    if status != 0:
        said = failure_lines(stderr_path, kept, count)
        if rename is not None:
            said = [d.replace(*rename) for d in said]
        shutil.rmtree(workdir, ignore_errors=True)
        raise failure(key, status, "\n".join(said) or f"pidcanon exited with status {status}")
    if rename is not None:
        kept = [d.replace(*rename) for d in kept]
    if links_at_end:
        received = yield from split_links(stdout_path, tag, 0 if report is None else report.get(LINKS_WRITTEN, 0))
    return (kept, count, report), received


def split_links(path, tag, links):
    """The lines of the file `path`: all but the last `links` as tagged blocks, then those as
    (LINK, line) one by one. Returns the number of lines."""
    total, last = 0, b"\n"
    with open(path, "rb") as f:
        while chunk := f.read(READ_SIZE):
            total += chunk.count(b"\n")
            last = chunk[-1:]
    total += last != b"\n"
    body, seen = max(total - links, 0), 0
    with open(path, "rb") as f:
        for block in line_blocks(f):
            n = block.count(b"\n") + 1
            if seen + n <= body:
                yield tag(block)
            else:
                lines = block.split(b"\n")
                keep = max(body - seen, 0)
                if keep:
                    yield tag(b"\n".join(lines[:keep]))
                for line in lines[keep:]:
                    yield LINK, line
            seen += n
    return total


# ---------------------------------------------------------------------------------------------
# Line formats: one process per partition


def rewrite_lines(lines_rdd, args, binary, side_files, files, reports, key_prefix, documents=None):
    """Each partition of `lines_rdd` (bytes) through one pidcanon process as one stream;
    `documents`, by partition, its file's path and number among the job's inputs."""

    def rewrite_partition(index, lines):
        numbered = args + (document_args(*documents[index], args) if documents else [])
        order = Numbered(*documents[index], index) if "--fingerprints" in args else None
        return rewrite_fed(key_prefix + str(index), partial(joined_lines, lines), None, numbered, binary, side_files, files, reports, order)

    return lines_rdd.mapPartitionsWithIndex(rewrite_partition)


def rewrite_line_files(sc, paths, args, binary, side_files, files, reports, numbers):
    """Each N-Triples/N-Quads file whole through one process, fed from its bytes: no line is
    handled in Python on its own (`--split files`). `numbers`: each path's number among the
    job's inputs."""

    def rewrite_file(record):
        path, data = record
        numbered = args + document_args(path, numbers[path], args)
        order = Numbered(path, numbers[path], 0) if "--fingerprints" in args else None
        return rewrite_fed("file " + path, partial(file_chunks, path, data), ("<stdin>", path), numbered, binary, side_files, files, reports, order)

    return sc.binaryFiles(",".join(paths), minPartitions=len(paths)).flatMap(rewrite_file)


def rewrite_fed(key, feed, rename, args, binary, side_files, files, reports, numbered=None):
    """One process of a line format, fed `feed(count)` (blocks, their lines counted): its
    output as tagged blocks (`tagged`), then its side files; the line counts checked, its
    report kept."""
    workdir = process_directory(files)
    command = process_command(binary, workdir, args, side_files, files)
    sent = LineCount()
    links_at_end = "--collapse" in args
    tag = tagged(side_files, links_at_end, numbered)
    stderr, received = yield from process_output(command, workdir, key, tag, blocks=feed(sent), rename=rename, links_at_end=links_at_end)
    check_lines(key, stderr[2], sent.lines, received)
    yield from finish_process(workdir, side_files, reports, key, stderr, sent.lines)


def check_lines(key, report, sent, received):
    """A pipe does not notice a dropped line: `pidcanon rewrite` of a line format writes one
    line per line read, less the reflexive statements `--drop-reflexive` drops and, with
    --collapse, less the equivalence statements within a class it did not write in place,
    plus the links it wrote at the end instead."""
    if report is None:
        expected, why = None, " (no report)"
    else:
        dropped, linked, links = report.get("reflexive_dropped", 0), report.get(LINKED, 0), report.get(LINKS_WRITTEN, 0)
        expected = sent - dropped - linked + links
        why = f" ({dropped} reflexive dropped, {linked} equivalence statements linked, {links} links written)" if dropped or linked or links else ""
    if received != expected:
        raise failure(key, 2, f"pidcanon read {sent} lines and wrote {received} (expected {expected}{why})")


# ---------------------------------------------------------------------------------------------
# Whole files (Turtle, TriG, RDF/XML): one process per file


def document_args(path, number, args):
    """The arguments that make a process's input the document it is among the job's inputs, as
    one `pidcanon rewrite` of all the inputs would read it: its number (the blank node labels
    written in the job's first input are kept, those of every other are made its own) and, unless
    --base is given, its own URL as its base (relative IRIs resolve against where the file is,
    and its blank node labels derive from it)."""
    base = [] if "--base" in args else ["--base", file_url(path)]
    return ["--first-input", str(number)] + base


def input_numbers(paths):
    """Each input path's number among the job's inputs, from 1, in the order they were listed."""
    return {path: n for n, path in enumerate(paths, start=1)}


def rewrite_whole_files(sc, paths, args, binary, side_files, files, reports, numbers=None):
    """Each file goes whole through one pidcanon process, which names it in its messages;
    `numbers`, if given, each path's number among the job's inputs."""
    links_at_end = "--collapse" in args

    def rewrite_file(record):
        path, data = record
        tag = tagged(side_files, links_at_end, Numbered(path, numbers[path], 0) if "--fingerprints" in args else None)
        workdir = process_directory(files)
        local = os.path.join(workdir, split_compression(os.path.basename(path))[0])
        with open(local, "wb") as f:
            for chunk in file_chunks(path, data, LineCount()):
                f.write(chunk)
        del data
        key = "file " + path
        # The file's own URL, not the copy's.
        document = document_args(path, numbers[path], args) if numbers else ([] if "--base" in args else ["--base", file_url(path)])
        command = process_command(binary, workdir, args + document, side_files, files) + [local]
        stderr, received = yield from process_output(command, workdir, key, tag, rename=(local, path), links_at_end=links_at_end)
        report = stderr[2]
        if report is None or received != report["statements_written"]:
            raise failure(key, 2, f"pidcanon reported {report and report['statements_written']} statements written but wrote {received} lines")
        yield from finish_process(workdir, side_files, reports, key, stderr, received)

    files_rdd = sc.binaryFiles(",".join(paths), minPartitions=len(paths))
    return files_rdd.flatMap(rewrite_file)


# ---------------------------------------------------------------------------------------------
# --collapse: the equivalence classes of the whole input, on the driver or on the cluster

GATHERED = "equivalences.nq"  # the equivalence statements of the whole input, on the driver
COMPONENT_ROUNDS = 60  # large-star/small-star rounds before the cluster path gives up
CHECKPOINT_EVERY = 4  # rounds between two cuts of the edges' lineage


class EquivalenceLines:
    """The input's equivalence statements (owl:sameAs and --equivalence-predicate), as lines,
    not collected: N-Triples/N-Quads lines that hold `<P>` for such a P, filtered in the JVM as
    they are read (the binary's own first pass picks its lines the same way); from the other
    formats, the lines of their rewrite to N-Triples/N-Quads that do. Both are kept once
    computed (`MEMORY_AND_DISK`), so that counting them does not read the input twice;
    `release()` when done."""

    def __init__(self, spark, options, line_paths, whole, args, files):
        from pyspark.sql.functions import col

        self.sc = spark.sparkContext
        needles = [f"<{p}>" for p in [SAME_AS, *options.equivalence_predicate]]
        self.lines = self.rewritten = None
        if line_paths:
            wanted = col("value").contains(needles[0])
            for needle in needles[1:]:
                wanted = wanted | col("value").contains(needle)
            self.lines = spark.read.text(line_paths).filter(wanted).persist(StorageLevel.MEMORY_AND_DISK)
        if whole:
            unused = self.sc.accumulator({}, PartitionReports())
            rewritten = rewrite_whole_files(self.sc, whole, args, options.binary, [], files, unused)
            picked = rewritten.flatMap(lambda block: [line for line in block.decode("utf-8").split("\n") if any(n in line for n in needles)])
            self.rewritten = picked.persist(StorageLevel.MEMORY_AND_DISK)

    def count(self):
        """How many there are (for line formats a count in the JVM: nothing reaches Python)."""
        return sum(part.count() for part in (self.lines, self.rewritten) if part is not None)

    def collect(self):
        """All of them, on the driver (str)."""
        lines = [row.value for row in self.lines.collect()] if self.lines is not None else []
        return lines + (self.rewritten.collect() if self.rewritten is not None else [])

    def rdd(self):
        """An RDD of them (bytes, without their newline)."""
        parts = []
        if self.lines is not None:
            parts.append(self.lines.rdd.map(lambda row: row.value.encode("utf-8")))
        if self.rewritten is not None:
            parts.append(self.rewritten.map(lambda line: line.encode("utf-8")))
        return parts[0] if len(parts) == 1 else self.sc.union(parts)

    def release(self):
        for part in (self.lines, self.rewritten):
            if part is not None:
                part.unpersist()


def classes_path(options, statements):
    """Where the classes are computed, "driver" or "cluster", and the choice as the summary
    reports it."""
    limit = options.driver_max_equivalences
    if options.classes != "auto":
        return options.classes, {"computed_on": options.classes, "why": f"--classes {options.classes}", "equivalence_statements": None}
    count = statements.count()
    where = "driver" if count <= limit else "cluster"
    why = f"--classes auto: {count} equivalence statements, " + (f"at most --driver-max-equivalences {limit}" if where == "driver" else f"over --driver-max-equivalences {limit}")
    return where, {"computed_on": where, "why": why, "equivalence_statements": count}


def gather_classes(spark, options, line_paths, whole, args, files, table_dir):
    """The first pass of --collapse for the whole input: the classes of its equivalence
    statements, computed on the driver or on the cluster (`classes_path`). Returns the table
    as `files` gives it to the processes of the second pass ({name: broadcast text or parts
    shipped to every executor}), a note for the summary, and the choice of path (a dict)."""
    statements = EquivalenceLines(spark, options, line_paths, whole, args, files)
    try:
        where, choice = classes_path(options, statements)
        if where == "driver":
            classes, note = classes_on_driver(options, statements.collect(), files)
            table = {CLASSES_FILE: spark.sparkContext.broadcast(classes)}
        else:
            threads = spark.sparkContext.getConf().get("spark.task.cpus", "1")
            note, choice["rounds"] = classes_on_cluster(spark.sparkContext, options, statements.rdd(), files, threads, table_dir)
            table = {CLASSES_PARTS: ShippedParts(table_dir.rsplit("/", 1)[-1])}
        return table, f"{note} (classes computed on the {where}" + (f" in {choice['rounds']} rounds of large-star/small-star" if where == "cluster" else "") + f": {choice['why']})", choice
    finally:
        statements.release()


def class_args(options):
    """How the binary makes the classes, on the driver and on the cluster alike: its
    union–find, its representative rule and its --max-class guard."""
    args = ["--collapse", "--max-class", str(options.max_class)]
    args += [a for p in options.equivalence_predicate for a in ("--equivalence-predicate", p)]
    return args + (["--allow-large-classes"] if options.allow_large_classes else [])


def classes_on_driver(options, statements, files):
    """The classes of `statements` (lines, collected on the driver), made by the binary there
    as `pidcanon rewrite --collapse` does on one machine. Returns the table of the classes,
    `iri<TAB>representative<TAB>kind` lines (the `--map` of that run), and the binary's count
    of pairs and classes."""
    workdir = process_directory(files)
    try:
        gathered, table = os.path.join(workdir, GATHERED), os.path.join(workdir, CLASSES_FILE)
        with open(gathered, "w", encoding="utf-8") as f:
            f.writelines(line + "\n" for line in statements)
        try:
            binary = find_binary(options.binary)
        except RuntimeError as e:
            raise RewriteFailed(failure_from(e)["message"], 2) from None
        # Lenient: a line that does not parse is left to the second pass to report, where its
        # file and line are known.
        command = [binary, "rewrite", "-i", "nq", "--to", "nq", "--lenient", *class_args(options)]
        command += shipped_args(workdir, files) + policy_args(options) + ["--map", table, "-o", os.devnull, gathered]
        done = subprocess.run(command, capture_output=True, text=True)
        said = done.stderr.replace(gathered, "(the equivalence statements gathered from the inputs)").splitlines()
        if done.returncode != 0:
            problems = [line for line in said if not line.startswith("(the equivalence") and "invalid identifier" not in line]
            # The cause first: the last line says why it stopped (the lines before, the details).
            raise RewriteFailed("pidcanon-spark: --collapse:\n" + "\n".join(problems[-1:] + problems[:-1]), done.returncode)
        with open(table, encoding="utf-8") as f:
            classes = f.read()
        note = next((line for line in said if line.startswith("pidcanon: --collapse: ")), "")
        return classes, note.replace("pidcanon:", "pidcanon-spark:", 1)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def classes_on_cluster(sc, options, lines, files, threads, table_dir):
    """The classes of `lines` (an RDD of equivalence statements) computed where they are, none
    collected on the driver, and no statement read in Python: each partition canonicalized by
    the binary and then collapsed by it (`partition_class_args`), whose `--map` rows link each
    member of a class found in the partition to that class's representative; those links
    joined into connected components (`connected_components`); each component's links given
    whole to one process of the binary as `owl:sameAs` statements (`member_link`), which makes
    the classes (`class_args`); their `--map` lines, the table, are written as part files to
    `table_dir` and shipped to every executor. Returns the note for the summary and the number
    of rounds."""
    reports = sc.accumulator({}, PartitionReports())
    canonical_args = ["-i", "nq", "--to", "nq", "--lenient", "-q", "--threads", threads] + policy_args(options)
    # Not -q: a process of --collapse says how many links it wrote (its line count).
    quiet_off = [a for a in canonical_args if a != "-q"]
    try:
        sc.setJobDescription("pidcanon --collapse: the classes of each partition (cluster)")
        canonical = rewrite_lines(lines, canonical_args, options.binary, [], files, reports, "equivalences ")
        canonical_lines = canonical.flatMap(lambda block: [line for line in block.split(b"\n") if line])
        collapsed = rewrite_lines(canonical_lines, quiet_off + partition_class_args(options), options.binary, ["map"], files, reports, "partition classes ")
        # `member<TAB>representative<TAB>kind`, each IRI canonical (the input was).
        links = collapsed.filter(lambda r: r[0] == "map").map(lambda r: tuple(r[1].split("\t")[:2])).persist(StorageLevel.MEMORY_AND_DISK)
        try:
            sc.setJobDescription("pidcanon --collapse: connected components (cluster)")
            labels, rounds = connected_components(links.map(lambda link: (vertex_id(link[0]), vertex_id(link[1]))))
            grouped = links.map(lambda link: (vertex_id(link[0]), member_link(link))).join(labels).map(lambda kv: (kv[1][1], kv[1][0]))
            by_component = grouped.partitionBy(sc.defaultParallelism).values()
            classes = rewrite_lines(by_component, quiet_off + class_args(options), options.binary, ["map"], files, reports, "classes ")
            table = classes.filter(lambda r: r[0] == "map").values().persist(StorageLevel.MEMORY_AND_DISK)
            sc.setJobDescription("pidcanon --collapse: classes table (cluster)")
            table.saveAsTextFile(table_dir)
            rows = table.map(lambda line: line.split("\t"))
            counts = (rows.map(lambda row: row[1]).distinct().count(), rows.flatMap(lambda row: row[:2]).distinct().count())
            table.unpersist()
        finally:
            links.unpersist()
    except Exception as error:  # a Py4JJavaError from a failed partition
        payload = failure_from(error)
        if payload is None:
            raise
        group = (payload["partition"] or "").removeprefix("classes ")
        message = re.sub(r"<stdin>(:\d+)*", f"(the equivalence statements of class group {group})", payload["message"])
        raise RewriteFailed("pidcanon-spark: --collapse:\n" + message, payload["status"]) from None
    sc.addFile(table_dir, recursive=True)
    read = sum((entry["report"] or {}).get("statements_read", 0) for key, entry in reports.value.items() if key.startswith("partition classes "))
    note = "pidcanon-spark: --collapse: {} equivalence statements, {} classes of {} identifiers".format(read, *counts)
    return note, rounds


def partition_class_args(options):
    """How the binary collapses the equivalence statements of one partition, to link each
    member of a class found there to the class's representative (its `--map`): no class is
    refused there (the --max-class guard applies to the classes of the whole input)."""
    args = ["--collapse", "--allow-large-classes", "--max-class", str(2**63 - 1)]
    return args + [a for p in options.equivalence_predicate for a in ("--equivalence-predicate", p)]


def member_link(link):
    """A `--map` row's member and representative, canonical IRIs (which hold no character an
    N-Triples IRI must escape), as the `owl:sameAs` statement that joins them (bytes)."""
    member, representative = link
    return f"<{member}> <{SAME_AS}> <{representative}> .".encode("utf-8")


def vertex_id(iri):
    """A 64-bit number for `iri` in the components (two IRIs that share one, unlikely as it is,
    only join their components: the binary still makes their classes)."""
    return int.from_bytes(hashlib.blake2b(iri.encode("utf-8"), digest_size=8).digest(), "big")


def connected_components(edges, max_rounds=COMPONENT_ROUNDS, checkpoint_every=CHECKPOINT_EVERY):
    """The connected components of the undirected graph `edges` (an RDD of vertex pairs; self
    loops and duplicates allowed), by iterative joins in Spark: large-star and small-star
    rounds (Kiveris et al., "Connected Components in MapReduce and Beyond", SoCC 2014) until
    every component is a star around its least vertex. Returns (an RDD of (vertex, the least
    vertex of its component) for every vertex, the number of rounds). The shuffles keep the
    number of partitions of `edges`.

        connected_components(sc.parallelize([(1, 2), (3, 2), (5, 6)]))  # 1→1 2→1 3→1 5→5 6→5"""
    n = edges.getNumPartitions()
    vertices = edges.flatMap(lambda e: e).distinct(n)
    current = edges.filter(lambda e: e[0] != e[1]).map(lambda e: (max(e), min(e))).distinct(n)
    current.persist(StorageLevel.MEMORY_AND_DISK)
    previous, rounds = None, 0
    while True:
        done = is_star_forest(current, n)  # computes `current`, so the edges it came from can go
        if previous is not None:
            previous.unpersist()
        if done:
            break
        if rounds == max_rounds:
            current.unpersist()
            raise RewriteFailed(f"pidcanon-spark: --collapse: the connected components of the equivalences did not converge in {max_rounds} rounds of large-star/small-star; use --classes driver", 2)
        rounds += 1
        previous, current = current, small_star(large_star(current, n), n).persist(StorageLevel.MEMORY_AND_DISK)
        if rounds % checkpoint_every == 0:
            cut_lineage(current)
    labels = vertices.map(lambda v: (v, None)).leftOuterJoin(current, n).map(lambda kv: (kv[0], kv[0] if kv[1][1] is None else kv[1][1]))
    return labels, rounds


# In large_star and small_star, the edges are partitioned by their first vertex once, and the
# least neighbour and the join that follow keep that partitioning: one shuffle each (and
# small_star's `distinct`), not one per step.


def large_star(edges, n):
    """Each vertex u links every neighbour larger than u to the least of u and its neighbours.
    `edges` (a, b) with a > b; so are those returned, possibly repeated."""
    both = edges.flatMap(lambda e: (e, (e[1], e[0]))).partitionBy(n)
    least = both.reduceByKey(min, n).map(lambda kv: (kv[0], min(kv)), preservesPartitioning=True)
    return both.filter(lambda e: e[1] > e[0]).join(least, n).values()


def small_star(edges, n):
    """Each vertex u links itself and its neighbours smaller than u to the least of them.
    `edges` (a, b) with a > b; so are those returned, each once."""
    edges = edges.partitionBy(n)
    least = edges.reduceByKey(min, n)
    linked = edges.join(least, n).flatMap(lambda kv: ((kv[1][0], kv[1][1]), (kv[0], kv[1][1])))
    return linked.filter(lambda e: e[0] != e[1]).distinct(n)


def is_star_forest(edges, n):
    """Whether `edges` (child, parent), child > parent, each once, give every vertex at most
    one parent and no parent a parent of its own: then each component is a star around its
    least vertex."""
    tally = edges.flatMap(lambda e: ((e[0], (1, False)), (e[1], (0, True))))
    merged = tally.reduceByKey(lambda a, b: (a[0] + b[0], a[1] or b[1]), n)
    return merged.filter(lambda kv: kv[1][0] > 1 or (kv[1][0] == 1 and kv[1][1])).count() == 0


def cut_lineage(rdd):
    """Checkpoint `rdd` (reliably if the job has a checkpoint directory, else in the executors'
    storage), so that the rounds' lineage does not grow without end."""
    if rdd.context.getCheckpointDir():
        rdd.checkpoint()
    else:
        rdd.localCheckpoint()


def collapse_args(options):
    """What each process of the second pass gets with the classes: they are the whole input's,
    so the process reads its own input once, and the --max-class guard has been applied."""
    args = ["--collapse", "--equivalences-only", "--max-class", str(2**63 - 1)]
    args += [a for p in options.equivalence_predicate for a in ("--equivalence-predicate", p)]
    return args + (["--drop-reflexive"] if options.drop_reflexive else [])


LINKS_PER_PART = 1_000_000  # link lines per part file of the output (at least one part)


def gathered_links(rewritten, fingerprinted=False):
    """The link lines of --collapse of every process (tagged LINK in `rewritten`; after their
    fingerprint and a tab if `fingerprinted`, which they lose here), each once (a member named
    in two partitions is linked by both processes) and sorted as the binary sorts them (in
    the lines' byte order): what one machine writes after the rest of its output. Returns (an RDD of them, or None if there
    are none, and their number)."""
    links = rewritten.filter(lambda r: r[0] == LINK).values()
    if fingerprinted:
        links = links.map(lambda line: line.split(b"\t", 1)[1])
    links = links.distinct()
    count = links.count()
    if count == 0:
        return None, 0
    parts = min(links.getNumPartitions(), -(-count // LINKS_PER_PART))
    return links.sortBy(lambda line: line, numPartitions=parts), count


# ---------------------------------------------------------------------------------------------
# --dedup across partitions

CODECS = {"gzip": "org.apache.hadoop.io.compress.GzipCodec", "bzip2": "org.apache.hadoop.io.compress.BZip2Codec"}


def keyed_lines(spark, blocks):
    """The lines of the processes' output blocks (`Numbered`: lines `FINGERPRINT<TAB>line`,
    `pidcanon rewrite --fingerprints`, a block's lines as one row) as a DataFrame, exploded in
    the JVM (Spark SQL; no line handled on its own in Python): `order` (input, partition, line:
    the line's place in the job's input), `statement` (whether it holds one), `key` (the
    fingerprint; for a line with no statement, its `order` as JSON: a key of its own) and
    `value` (the line, bytes); blank lines without a statement are left out."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import ArrayType, BinaryType, LongType, StructField, StructType

    schema = StructType([StructField(name, LongType(), False) for name in ("input", "partition", "first")] + [StructField("lines", ArrayType(BinaryType(), False), False)])
    # Rows of blocks; their lines are not checked one by one in Python (`verifySchema`).
    lines = spark.createDataFrame(blocks, schema, verifySchema=False).select(
        "input", "partition", "first", F.posexplode("lines").alias("at", "line")
    )
    # The key, then a tab, then the line: fixed offsets in bytes (a fingerprint is 32 hex
    # digits; a line with no statement starts with the tab).
    is_statement = F.substring("line", 1, 1) != F.lit(b"\t")
    order = F.struct("input", "partition", (F.col("first") + F.col("at")).alias("line"))
    lines = lines.select(
        order.alias("order"),
        is_statement.alias("statement"),
        F.when(is_statement, F.substring("line", 1, 32)).otherwise(F.to_json(order).cast("binary")).alias("key"),
        F.when(is_statement, F.expr("substring(line, 34)")).otherwise(F.expr("substring(line, 2)")).alias("value"),
    )
    return lines.filter(F.col("statement") | F.col("value").cast("string").rlike("\\S"))


def drop_duplicates(spark, blocks, links, partitions):
    """The job's output with one line per statement across the whole input, as a DataFrame of
    one column, `value`: the processes' lines (`keyed_lines`) shuffled on their key in the JVM,
    keeping of each statement its first line in the job's input order (the line `pidcanon
    rewrite --dedup` of all the inputs keeps); lines that hold no statement (comments, syntax
    errors passed through) are kept as they are, but blank ones; `links` (an RDD of lines, or
    None), the links of --collapse, follow. One pass over the input (it is the processes'
    output). `partitions`: how many the shuffle makes. Returns (the DataFrame, a function that
    gives, once it is written, the number of lines dropped as duplicates)."""
    from pyspark.sql import Observation
    from pyspark.sql import functions as F

    read, written = Observation("pidcanon --dedup: statements read"), Observation("pidcanon --dedup: statements kept")
    lines = keyed_lines(spark, blocks).observe(read, F.count(F.when(F.col("statement"), 1)).alias("lines"))
    first = lines.repartition(partitions, "key").groupBy("key", "statement").agg(F.min(F.struct("order", "value")).alias("first"))
    first = first.observe(written, F.count(F.when(F.col("statement"), 1)).alias("lines"))
    result = first.select(F.col("first.value").cast("string").alias("value"))
    if links is not None:
        result = result.unionAll(spark.createDataFrame(links.map(lambda line: (line.decode("utf-8"),)), "value string"))
    return result, lambda: read.get["lines"] - written.get["lines"]


# ---------------------------------------------------------------------------------------------
# The job


class Summary:
    """Counts summed over every pidcanon process, like `pidcanon rewrite`'s summary."""

    def __init__(self, reports, seconds, duplicates_dropped, classes=None, links=None):
        self.classes = classes  # with --collapse, where the classes were computed and why
        self.counts = Counter()
        self.rewritten = Counter()
        for entry in reports.values():
            report = entry["report"]
            for key in ("bytes_read", "statements_read", "statements_written", "invalid_identifiers", "syntax_errors", "reflexive_dropped", LINKED, LINKS_WRITTEN):
                self.counts[key] += report.get(key, 0)
            self.rewritten.update(report["rewritten"])
        self.counts["statements_written"] -= duplicates_dropped
        self.counts["duplicates_dropped"] = duplicates_dropped
        # With --collapse, the links written are those of all processes, each once (`links`),
        # not the sum of each process's.
        self.collapse = links is not None
        if self.collapse:
            self.counts["statements_written"] += links - self.counts[LINKS_WRITTEN]
            self.counts[LINKS_WRITTEN] = links
        self.seconds = seconds

    def as_json(self):
        c = self.counts
        return {
            **{k: c[k] for k in ("bytes_read", "statements_read", "statements_written", "invalid_identifiers", "syntax_errors", "duplicates_dropped", "reflexive_dropped")},
            "rewritten": dict(sorted(self.rewritten.items())),
            "rewritten_total": sum(self.rewritten.values()),
            "seconds": self.seconds,
            "megabytes_per_second": c["bytes_read"] / 1e6 / self.seconds if self.seconds else 0.0,
            "statements_per_second": c["statements_read"] / self.seconds if self.seconds else 0.0,
            **({"classes": self.classes} if self.classes else {}),
            **({k: c[k] for k in (LINKED, LINKS_WRITTEN)} if self.collapse else {}),
        }

    def text(self):
        j = self.as_json()
        kinds = [k for k in KIND_ORDER if self.rewritten[k]] + sorted(k for k in self.rewritten if k not in KIND_ORDER)
        per_kind = ", ".join(f"{k} {self.rewritten[k]}" for k in kinds)
        return (
            f"pidcanon-spark: {j['statements_read']} statements read, {j['statements_written']} written; "
            f"{j['rewritten_total']} IRIs rewritten ({per_kind}); {j['invalid_identifiers']} invalid identifiers; "
            f"{j['duplicates_dropped']} duplicates dropped; {j['syntax_errors']} syntax errors; "
            + (f"{j[LINKED]} equivalence statements within classes written as {j[LINKS_WRITTEN]} links from their representatives; " if j.get(LINKED) or j.get(LINKS_WRITTEN) else "")
            + (f"{j['reflexive_dropped']} reflexive equivalence statements dropped; " if j["reflexive_dropped"] else "")
            + f"{j['megabytes_per_second']:.1f} MB/s, {j['statements_per_second']:.0f} statements/s"
        )


class Splits:
    """Where each partition of the line-format input comes from, to turn a line of a partition's
    stream into a line of its file."""

    def __init__(self, groups):
        self.groups = groups  # {format: (input RDD, [(path, start)] by partition index)}

    @staticmethod
    def of(rdd):
        return [(p.inputSplit().value().getPath().toString(), p.inputSplit().value().getStart()) for p in rdd._jrdd.rdd().partitions()]

    def lines_before(self, fmt, index, line_counts):
        """The number of lines of partition `index`'s file before it. Partitions whose counts
        are missing (the job failed before they finished) are counted by an extra job."""
        rdd, splits = self.groups[fmt]
        path, start = splits[index]
        earlier = [j for j, (p, s) in enumerate(splits) if p == path and s < start]
        missing = [j for j in earlier if j not in line_counts]
        counted = rdd.context.runJob(rdd, lambda it: [sum(1 for _ in it)], missing) if missing else []
        return sum(line_counts[j] for j in earlier if j in line_counts) + sum(counted)

    def locate(self, key, messages, line_counts):
        """`messages` of partition `key` ("nt 3") with <stdin>:L:C turned into file:line:column."""
        fmt, index = key.split(" ")
        if fmt not in self.groups:  # a process of --collapse's first pass: no input line
            return messages
        index = int(index)
        path = self.groups[fmt][1][index][0]
        before = self.lines_before(fmt, index, line_counts.get(fmt, {}))
        return [STDIN_POSITION.sub(lambda m: f"{path}:{int(m.group(1)) + before}:{m.group(2)}", m) for m in messages]


def located_diagnostics(splits, reports):
    """Every partition's kept diagnostics, with file and line; and how many were not kept."""
    line_counts = {}
    for key, entry in reports.items():
        if not key.startswith("file "):
            fmt, index = key.split(" ")
            line_counts.setdefault(fmt, {})[int(index)] = entry["lines"]
    shown, hidden = [], 0
    for key in sorted(reports):
        entry = reports[key]
        messages = entry["diagnostics"]
        if messages and not key.startswith("file "):
            messages = splits.locate(key, messages, line_counts)
        shown += messages
        hidden += entry["diagnostic_count"] - len(messages)
    return shown, hidden, line_counts


WHOLE_FILE_LIMIT = 1 << 30  # bytes on disk: a file read whole is held in an executor's memory


def split_files(sc, options, by_format):
    """Whether N-Triples/N-Quads files go whole to one process each (see --split)."""
    if options.split != "auto" or options.min_partitions is not None:
        return options.split == "files"
    paths = [p for fmt_paths in by_format.values() for p in fmt_paths]
    if len(paths) < sc.defaultParallelism:
        return False
    conf = sc._jsc.hadoopConfiguration()
    for path in paths:
        hadoop_path = sc._jvm.org.apache.hadoop.fs.Path(path)
        if hadoop_path.getFileSystem(conf).getFileStatus(hadoop_path).getLen() > WHOLE_FILE_LIMIT:
            return False
    return True


# In a Spark job error: the task that failed (its index is its partition's in the stage that
# reads the input), and each exception of the chain.
LOST_TASK = re.compile(r"Lost task (\d+)\.\d+ in stage")
CAUSED_BY = re.compile(r"^Caused by: ([\w.$]+): ?(.*)$", re.MULTILINE)
# A root cause that is the input's, not Spark's or the Python worker's.
INPUT_ERROR = re.compile(r"(java\.io|java\.util\.zip|org\.apache\.hadoop)\.[\w.$]*(Exception|Error)")


def input_failure(error, sources):
    """The message of a job that failed reading a file split into lines (a .gz cut short): the
    error is Spark's text reader's, in the JVM, before any code of the job sees the partition
    (the Python worker is reported as crashed, and the cause is at the end of the chain). The
    file (`sources`: by partition) and the cause, first; None when the error is not that."""
    text = str(error)
    causes = CAUSED_BY.findall(text)
    task = LOST_TASK.search(text)
    if not causes or task is None or not INPUT_ERROR.fullmatch(causes[-1][0]):
        return None
    index = int(task.group(1))
    path = sources[index] if index < len(sources) else None
    if path is None:
        return None
    kind, said = causes[-1]
    return unreadable(path, f"{said} ({kind.rsplit('.', 1)[-1]})" if said else kind)


def failure_from(error):
    """The payload of the first partition failure in a Spark job error, or None."""
    text = str(error)
    start = text.find(FAILURE_MARKER)
    if start < 0:
        return None
    payload = text[start + len(FAILURE_MARKER):]
    return json.JSONDecoder().raw_decode(payload)[0]


def run(spark, options):
    """Run the job on `spark`; return its Summary, print diagnostics to stderr unless quiet.
    Raises RewriteFailed (message and exit status) when a partition fails."""
    sc = spark.sparkContext
    table_dir = classes_directory(sc, options.output) if options.collapse else None
    try:
        return rewrite_job(spark, options, table_dir)
    finally:
        if table_dir is not None:
            path = sc._jvm.org.apache.hadoop.fs.Path(table_dir)
            path.getFileSystem(sc._jsc.hadoopConfiguration()).delete(path, True)


def classes_directory(sc, output):
    """Where the classes table computed on the cluster goes: a new directory beside `output`, on
    its file system, hidden from Hadoop's readers by its leading `_` (removed at the end)."""
    path = sc._jvm.org.apache.hadoop.fs.Path(output)
    qualified = path.getFileSystem(sc._jsc.hadoopConfiguration()).makeQualified(path)
    name = f"_pidcanon-classes-{qualified.getName()}-{uuid.uuid4().hex[:12]}"
    return sc._jvm.org.apache.hadoop.fs.Path(qualified.getParent(), name).toString()


def rewrite_job(spark, options, table_dir):
    """`run`, with the classes table (if computed on the cluster) in `table_dir`."""
    started = time.monotonic()
    sc = spark.sparkContext
    if __name__ != "__main__":
        # Imported rather than run by spark-submit: ship this module's code with the tasks.
        cloudpickle.register_pickle_by_value(sys.modules[__name__])
    paths = list_inputs(sc, options.inputs)
    numbers = input_numbers(paths)
    check_outputs(sc, [d for d in (options.output, options.map, options.links) if d])
    threads = sc.getConf().get("spark.task.cpus", "1")  # the cores Spark gives each task
    to = options.to or default_output_format(paths, options.input_format)
    files = {}  # written next to every process
    if options.policy:
        with open(options.policy, encoding="utf-8") as f:
            files[POLICY_FILE] = sc.broadcast(f.read())
    args = ["--to", to, "--threads", threads] + rewrite_args(options)
    side_files = [kind for kind in ("map", "links") if getattr(options, kind)]
    reports = sc.accumulator({}, PartitionReports())

    by_format = {}
    whole = []
    for path in paths:
        fmt = line_format(path, options.input_format)
        (by_format.setdefault(fmt, []) if fmt else whole).append(path)
    whole_args = (["-i", options.input_format] if options.input_format else []) + args
    note = choice = None
    if options.collapse:
        sc.setJobDescription("pidcanon --collapse: equivalence statements")
        line_paths = [p for fmt_paths in by_format.values() for p in fmt_paths]
        table, note, choice = gather_classes(spark, options, line_paths, whole, whole_args, files, table_dir)
        files.update(table)
        args += collapse_args(options)
        whole_args += collapse_args(options)
    if options.dedup:  # each line with the key of its statement, for `drop_duplicates`
        args.append("--fingerprints")
        whole_args.append("--fingerprints")
    parts, groups = [], {}
    sources = []  # by partition of the output: the file Spark's text reader reads, else None
    whole_line_files = split_files(sc, options, by_format)
    for fmt, fmt_paths in sorted(by_format.items()):
        if whole_line_files:
            parts.append(rewrite_line_files(sc, fmt_paths, ["-i", fmt] + args, options.binary, side_files, files, reports, numbers))
            sources += [None] * parts[-1].getNumPartitions()
            continue
        lines = sc.textFile(",".join(fmt_paths), options.min_partitions, use_unicode=False)
        groups[fmt] = (lines, Splits.of(lines))
        documents = [(path, numbers[path]) for path, _ in groups[fmt][1]]
        parts.append(rewrite_lines(lines, ["-i", fmt] + args, options.binary, side_files, files, reports, fmt + " ", documents))
        sources += [path for path, _ in groups[fmt][1]]
    if whole:
        parts.append(rewrite_whole_files(sc, whole, whole_args, options.binary, side_files, files, reports, numbers))
        sources += [None] * parts[-1].getNumPartitions()
    splits = Splits(groups)
    rewritten = parts[0] if len(parts) == 1 else sc.union(parts)

    if side_files or options.collapse:
        rewritten = rewritten.persist(StorageLevel.MEMORY_AND_DISK)
        data = rewritten.filter(lambda r: r[0] == "d").values()
    else:
        data = rewritten
    link_count, links, duplicates = 0, None, None
    try:
        if options.collapse:
            sc.setJobDescription("pidcanon --collapse: links from the representatives")
            links, link_count = gathered_links(rewritten, options.dedup)
        sc.setJobDescription("pidcanon rewrite")
        if options.dedup:
            partitions = sc.defaultParallelism if sc.getConf().contains("spark.default.parallelism") else data.getNumPartitions()
            deduplicated, duplicates = drop_duplicates(spark, data, links, partitions)
            writer = deduplicated.write if options.compression is None else deduplicated.write.option("compression", options.compression)
            writer.text(options.output)
        else:
            if links is not None:
                data = sc.union([data, links])
            data.saveAsTextFile(options.output, CODECS.get(options.compression))
        for kind in side_files:
            sc.setJobDescription(f"pidcanon --{kind}")
            rewritten.filter(lambda r, kind=kind: r[0] == kind).values().distinct().saveAsTextFile(getattr(options, kind), CODECS.get(options.compression))
    except Exception as error:  # a Py4JJavaError from the failed job
        payload = failure_from(error)
        if payload is None:
            unread = input_failure(error, sources)
            if unread is None:
                raise
            raise RewriteFailed(unread, 2) from None
        key, message = payload["partition"], payload["message"]
        if key is not None and not key.startswith("file "):
            _, _, line_counts = located_diagnostics(splits, reports.value)
            message = "\n".join(splits.locate(key, message.split("\n"), line_counts))
        raise RewriteFailed(message, payload["status"]) from None
    finally:
        if side_files or options.collapse:
            rewritten.unpersist()

    dropped = 0 if duplicates is None else duplicates()
    summary = Summary(reports.value, time.monotonic() - started, dropped, choice, link_count if options.collapse else None)
    if not options.quiet:
        if note:
            print(note, file=sys.stderr)
        shown, hidden, _ = located_diagnostics(splits, reports.value)
        for message in shown:
            print(message, file=sys.stderr)
        if hidden:
            print(f"pidcanon-spark: {hidden} more diagnostics not shown ({DIAGNOSTICS_KEPT} kept per partition)", file=sys.stderr)
    return summary


def spark_session():
    from pyspark.sql import SparkSession

    return SparkSession.builder.appName("pidcanon rewrite").getOrCreate()


def local_session(master, app, conf=()):
    """A SparkSession on this machine only (loopback interface, no UI), as the tests and the
    benchmark use it: `local_session("local[2]", "tests")`."""
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.master(master).appName(app)
    for key, value in (("spark.driver.host", "127.0.0.1"), ("spark.driver.bindAddress", "127.0.0.1"), ("spark.ui.enabled", "false"), *conf):
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session


def main(argv=None):
    options = parse_args(sys.argv[1:] if argv is None else argv)
    spark = spark_session()
    try:
        summary = run(spark, options)
    except RewriteFailed as e:
        print(e.message, file=sys.stderr)
        return e.status
    finally:
        spark.stop()
    if options.report == "json":
        print(json.dumps(summary.as_json(), sort_keys=True), file=sys.stderr)
    elif not options.quiet:
        print(summary.text(), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
