"""Run `pidcanon rewrite` on Apache Spark.

    spark-submit [spark options] spark/pidcanon_spark.py INPUT... --output DIR \
        [--to nt|nq] [--binary PATH] [rewrite options]

N-Triples and N-Quads inputs (plain, .gz or .bz2) are read with Spark's text reader, split into
partitions, and each partition goes through one `pidcanon rewrite` process as one stream
(`RDD.pipe`, `checkCode=True`); the job checks that every partition wrote as many lines as it
read. Turtle, TriG and RDF/XML files do not split on lines: each goes whole through one
process. `--dedup` is Spark's shuffle on the statement text, `--map`/`--links` are
de-duplicated across partitions, and the per-partition reports are summed into one summary.
The design and its limits are in docs/spark.md.

Used from Python (the tests do):

    options = parse_args(["in.nt", "--output", "out", "--binary", "/usr/bin/pidcanon"])
    summary = run(spark, options)   # raises RewriteFailed with the binary's message
    print(summary.text())
"""

import argparse
import bz2
import gzip
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter

from pyspark import SparkFiles, StorageLevel, TaskContext, cloudpickle
from pyspark.accumulators import AccumulatorParam
from pyspark.errors import PySparkRuntimeError

LINE_FORMATS = {"nt": "nt", "ntriples": "nt", "application/n-triples": "nt", "nq": "nq", "nquads": "nq", "application/n-quads": "nq"}
GRAPH_FORMATS = {"nq", "nquads", "application/n-quads", "trig", "application/trig"}
COMPRESSIONS = {".gz": gzip.decompress, ".bz2": bz2.decompress}
# The order of kinds in `pidcanon rewrite`'s summary; kinds it adds later follow, sorted.
KIND_ORDER = ["fedora-object", "fedora-dissemination", "oai", "poi", "handle", "doi", "pdi"]
DIAGNOSTICS_KEPT = 20  # per partition; the rest are counted
FAILURE_MARKER = "pidcanon-spark-failure "
STDIN_POSITION = re.compile(r"<stdin>:(\d+):(\d+)")


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
    p.add_argument("--min-partitions", type=int, help="minimum number of partitions of the N-Triples/N-Quads input [default: Spark's]")
    p.add_argument("--compression", choices=["gzip", "bzip2"], help="compress the part files")
    p.add_argument("--dedup", action="store_true", help="drop duplicate statements across the whole input (a shuffle)")
    p.add_argument("--map", metavar="DIR", help="write `original<TAB>canonical<TAB>kind`, once per rewritten IRI, as part files in DIR")
    p.add_argument("--links", metavar="DIR", help="write `<original> owl:sameAs <canonical> .`, once per rewritten IRI, as part files in DIR")
    p.add_argument("--report", choices=["json"], help="print the summary as JSON on stderr")
    p.add_argument("-q", "--quiet", action="store_true", help="no summary and no diagnostics")
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
    return options


def rewrite_args(options):
    """The arguments every `pidcanon rewrite` process gets (besides input, output, policy and
    report)."""
    args = []
    for flag in ("lenient", "strict"):
        if getattr(options, flag):
            args.append("--" + flag)
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
    for suffix in COMPRESSIONS:
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
    kept, count, report = [], 0, None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("{"):
                report = json.loads(line)
                continue
            count += 1
            if len(kept) < DIAGNOSTICS_KEPT:
                kept.append(line)
    return kept, count, report


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
                if "\n" in candidate:
                    raise failure(None, 2, f"pidcanon binary path {candidate!r} contains a newline")
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


def tagged(side_files):
    """How output lines travel: bare, or tagged "d" beside the --map/--links lines."""
    return (lambda line: ("d", line)) if side_files else (lambda line: line)


def failure(partition, status, message):
    """An exception whose text carries a marker the driver finds in Spark's job error.
    `partition` is "nt 3" (its <stdin> positions are turned into file positions), "file PATH"
    or None."""
    payload = json.dumps({"partition": partition, "status": status, "message": message})
    return RuntimeError(FAILURE_MARKER + payload)


# ---------------------------------------------------------------------------------------------
# Line formats: one process per partition through RDD.pipe

# `RDD.pipe` runs one fixed command for every partition, but each process needs its own side
# files (stderr with the report, --map, --links). So each partition's stream starts with two
# header lines, the binary's path and a fresh directory, which this shell reads before
# handing the rest of the stream to pidcanon; `read` takes bytes up to the newline only.
PIPE_SCRIPT = 'IFS= read -r bin && IFS= read -r dir && exec "$bin" rewrite "$@" {side} --report json 2>"$dir/stderr"'
POLICY_FILE = "policy.toml"  # written into each process's directory when --policy is given


class PipedPartition:
    """One partition's run: its side directory and the number of lines sent to pidcanon."""

    def __init__(self, binary_name, policy):
        self.binary = find_binary(binary_name)
        self.dir = process_directory(policy)
        self.lines_in = 0

    def stream(self, lines):
        yield self.binary
        yield self.dir
        for line in lines:
            self.lines_in += 1
            yield line


def process_directory(policy):
    """A fresh directory for one pidcanon process's side files, with the policy if any."""
    path = tempfile.mkdtemp(prefix="pidcanon-spark-")
    if policy is not None:
        with open(os.path.join(path, POLICY_FILE), "w", encoding="utf-8") as f:
            f.write(policy)
    return path


def pipe_command(args, fmt, to, threads, side_files, policy):
    side = " ".join(f'--{kind} "$dir/{kind}"' for kind in side_files)
    if policy is not None:
        side += f' --policy "$dir/{POLICY_FILE}"'
    script = PIPE_SCRIPT.format(side=side)
    return shlex.join(["/bin/sh", "-c", script, "pidcanon-spark", "-i", fmt, "--to", to, "--threads", threads] + args)


def rewrite_lines(lines_rdd, args, fmt, to, threads, binary, side_files, policy, reports, key_prefix):
    """Pipe each partition of `lines_rdd` through pidcanon; see `PIPE_SCRIPT`."""
    # The two ends of one partition's pipe run in the same Python worker (PySpark chains
    # them into one function); they meet here, keyed by the task attempt.
    running = {}

    def start(index, lines):
        run = PipedPartition(binary, policy)
        running[TaskContext.get().taskAttemptId()] = run
        return run.stream(lines)

    tag = tagged(side_files)

    def finish(index, output):
        run = running.pop(TaskContext.get().taskAttemptId())
        key = key_prefix + str(index)
        lines_out = 0
        try:
            for line in output:
                lines_out += 1
                yield tag(line)
        except PySparkRuntimeError as e:  # checkCode: pidcanon exited with an error
            kept, _, _ = read_stderr(os.path.join(run.dir, "stderr"))
            shutil.rmtree(run.dir, ignore_errors=True)
            status = int(e.getMessageParameters()["error_code"])
            raise failure(key, status, "\n".join(kept) or str(e)) from None
        stderr = read_stderr(os.path.join(run.dir, "stderr"))
        if stderr[2] is None or lines_out != run.lines_in:
            raise failure(key, 2, f"pidcanon read {run.lines_in} lines and wrote {lines_out} (expected as many)")
        yield from finish_process(run.dir, side_files, reports, key, stderr, lines_out)

    command = pipe_command(args, fmt, to, threads, side_files, policy)
    return lines_rdd.mapPartitionsWithIndex(start).pipe(command, checkCode=True).mapPartitionsWithIndex(finish)


# ---------------------------------------------------------------------------------------------
# Whole files (Turtle, TriG, RDF/XML): one process per file


def rewrite_whole_files(sc, paths, args, forced, to, threads, binary, side_files, policy, reports):
    """Each file goes whole through one pidcanon process, which names it in its messages."""

    tag = tagged(side_files)

    def rewrite_file(record):
        path, data = record
        name, suffix = split_compression(os.path.basename(path))
        if suffix:
            data = COMPRESSIONS[suffix](data)
        workdir = process_directory(policy)
        local = os.path.join(workdir, name)
        with open(local, "wb") as f:
            f.write(data)
        del data
        command = [find_binary(binary), "rewrite", local, "--to", to, "--threads", threads, "--report", "json"]
        command += (["-i", forced] if forced else []) + args
        command += ["--policy", os.path.join(workdir, POLICY_FILE)] if policy is not None else []
        command += [a for kind in side_files for a in (f"--{kind}", os.path.join(workdir, kind))]
        out_path = os.path.join(workdir, "out")
        with open(out_path, "wb") as out, open(os.path.join(workdir, "stderr"), "wb") as err:
            status = subprocess.run(command, stdout=out, stderr=err, stdin=subprocess.DEVNULL).returncode
        kept, count, report = read_stderr(os.path.join(workdir, "stderr"))
        kept = [d.replace(local, path) for d in kept]
        key = "file " + path
        if status != 0:
            shutil.rmtree(workdir, ignore_errors=True)
            raise failure(key, status, "\n".join(kept) or f"pidcanon exited with status {status}")
        lines_out = 0
        with open(out_path, encoding="utf-8") as f:
            for line in f:
                lines_out += 1
                yield tag(line.rstrip("\n"))
        if report is None or lines_out != report["statements_written"]:
            raise failure(key, 2, f"pidcanon reported {report and report['statements_written']} statements written but wrote {lines_out} lines")
        yield from finish_process(workdir, side_files, reports, key, (kept, count, report), lines_out)

    files = sc.binaryFiles(",".join(paths), minPartitions=len(paths))
    return files.flatMap(rewrite_file)


# ---------------------------------------------------------------------------------------------
# --dedup across partitions

# One N-Triples/N-Quads term: a triple term's `<<(` or `)>>`, an IRI, a blank node, a literal.
IRI = r'<((?:[^<>"{}|^`\\\s]|\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8})*)>'
TERM = re.compile(
    r'\s*(?:(<<\(|\)>>)|' + IRI + r'|(_:[^\s<>"().]+(?:\.+[^\s<>"().]+)*)'
    r'|"((?:[^"\\\n\r]|\\.)*)"(?:@([A-Za-z0-9-]+)|\^\^' + IRI + r')?)'
)
END = re.compile(r"\s*\.\s*(?:#.*)?")
ESCAPE = re.compile(r"\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))")
ECHAR = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f", '"': '"', "'": "'", "\\": "\\"}
XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"


def unescape(text):
    if "\\" not in text:
        return text
    return ESCAPE.sub(lambda m: chr(int(m.group(1) or m.group(2), 16)) if m.group(3) is None else ECHAR.get(m.group(3), m.group(0)), text)


def statement_key(line):
    """The statement a line holds in one spelling — escapes decoded, single spaces, no
    comment, language tags in lower case, no xsd:string datatype — as `pidcanon rewrite
    --dedup` compares statements; None if the line is blank, a comment, or not a statement (a
    syntax error passed through by --lenient)."""
    terms, pos = [], 0
    while True:
        m = TERM.match(line, pos)
        if m is None:
            break
        pos = m.end()
        bracket, iri, bnode, value, lang, datatype = m.groups()
        if bracket or bnode:
            terms.append(bracket or bnode)
        elif iri is not None:
            terms.append("<" + unescape(iri) + ">")
        else:
            value = unescape(value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
            datatype = unescape(datatype) if datatype is not None else None
            suffix = "@" + lang.lower() if lang else "" if datatype in (None, XSD_STRING) else "^^<" + datatype + ">"
            terms.append('"' + value + '"' + suffix)
    if not terms or END.fullmatch(line, pos) is None:
        return None
    return " ".join(terms) + " ."


def drop_duplicates(lines, counts):
    """Keep one line per statement across the whole RDD (a shuffle). The line kept is the
    statement's plain spelling if one line had it, else the smallest; lines that are not
    statements are kept as they are, except blank ones."""

    def keyed(index, part):
        seen = 0
        for n, line in enumerate(part):
            key = statement_key(line)
            if key is not None:
                seen += 1
                yield key, None if key == line else line
            elif line.strip():
                yield (index, n), line
        counts.add({f"in {index}": seen})

    def pick(a, b):
        return None if a is None or b is None else min(a, b)

    def output(index, part):
        kept = 0
        for key, line in part:
            if isinstance(key, str):
                kept += 1
                yield key if line is None else line
            else:
                yield line
        counts.add({f"out {index}": kept})

    return lines.mapPartitionsWithIndex(keyed).reduceByKey(pick).mapPartitionsWithIndex(output)


# ---------------------------------------------------------------------------------------------
# The job


class Summary:
    """Counts summed over every pidcanon process, like `pidcanon rewrite`'s summary."""

    def __init__(self, reports, seconds, duplicates_dropped):
        self.counts = Counter()
        self.rewritten = Counter()
        for entry in reports.values():
            report = entry["report"]
            for key in ("bytes_read", "statements_read", "statements_written", "invalid_identifiers", "syntax_errors"):
                self.counts[key] += report[key]
            self.rewritten.update(report["rewritten"])
        self.counts["statements_written"] -= duplicates_dropped
        self.counts["duplicates_dropped"] = duplicates_dropped
        self.seconds = seconds

    def as_json(self):
        c = self.counts
        return {
            **{k: c[k] for k in ("bytes_read", "statements_read", "statements_written", "invalid_identifiers", "syntax_errors", "duplicates_dropped")},
            "rewritten": dict(sorted(self.rewritten.items())),
            "rewritten_total": sum(self.rewritten.values()),
            "seconds": self.seconds,
            "megabytes_per_second": c["bytes_read"] / 1e6 / self.seconds if self.seconds else 0.0,
            "statements_per_second": c["statements_read"] / self.seconds if self.seconds else 0.0,
        }

    def text(self):
        j = self.as_json()
        kinds = [k for k in KIND_ORDER if self.rewritten[k]] + sorted(k for k in self.rewritten if k not in KIND_ORDER)
        per_kind = ", ".join(f"{k} {self.rewritten[k]}" for k in kinds)
        return (
            f"pidcanon-spark: {j['statements_read']} statements read, {j['statements_written']} written; "
            f"{j['rewritten_total']} IRIs rewritten ({per_kind}); {j['invalid_identifiers']} invalid identifiers; "
            f"{j['duplicates_dropped']} duplicates dropped; {j['syntax_errors']} syntax errors; "
            f"{j['megabytes_per_second']:.1f} MB/s, {j['statements_per_second']:.0f} statements/s"
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
    started = time.monotonic()
    sc = spark.sparkContext
    if __name__ != "__main__":
        # Imported rather than run by spark-submit: ship this module's code with the tasks.
        cloudpickle.register_pickle_by_value(sys.modules[__name__])
    paths = list_inputs(sc, options.inputs)
    check_outputs(sc, [d for d in (options.output, options.map, options.links) if d])
    threads = sc.getConf().get("spark.task.cpus", "1")  # the cores Spark gives each task
    to = options.to or default_output_format(paths, options.input_format)
    policy = None
    if options.policy:
        with open(options.policy, encoding="utf-8") as f:
            policy = f.read()
    args = rewrite_args(options)
    side_files = [kind for kind in ("map", "links") if getattr(options, kind)]
    reports = sc.accumulator({}, PartitionReports())

    by_format = {}
    whole = []
    for path in paths:
        fmt = line_format(path, options.input_format)
        (by_format.setdefault(fmt, []) if fmt else whole).append(path)
    parts, groups = [], {}
    for fmt, fmt_paths in sorted(by_format.items()):
        lines = sc.textFile(",".join(fmt_paths), options.min_partitions)
        groups[fmt] = (lines, Splits.of(lines))
        parts.append(rewrite_lines(lines, args, fmt, to, threads, options.binary, side_files, policy, reports, fmt + " "))
    if whole:
        parts.append(rewrite_whole_files(sc, whole, args, options.input_format, to, threads, options.binary, side_files, policy, reports))
    splits = Splits(groups)
    rewritten = parts[0] if len(parts) == 1 else sc.union(parts)

    if side_files:
        rewritten = rewritten.persist(StorageLevel.MEMORY_AND_DISK)
        data = rewritten.filter(lambda r: r[0] == "d").values()
    else:
        data = rewritten
    counts = sc.accumulator({}, PartitionReports())
    if options.dedup:
        data = drop_duplicates(data, counts)
    codec = {"gzip": "org.apache.hadoop.io.compress.GzipCodec", "bzip2": "org.apache.hadoop.io.compress.BZip2Codec"}.get(options.compression)

    try:
        sc.setJobDescription("pidcanon rewrite")
        data.saveAsTextFile(options.output, codec)
        for kind in side_files:
            sc.setJobDescription(f"pidcanon --{kind}")
            rewritten.filter(lambda r, kind=kind: r[0] == kind).values().distinct().saveAsTextFile(getattr(options, kind), codec)
    except Exception as error:  # a Py4JJavaError from the failed job
        payload = failure_from(error)
        if payload is None:
            raise
        key, message = payload["partition"], payload["message"]
        if key is not None and not key.startswith("file "):
            _, _, line_counts = located_diagnostics(splits, reports.value)
            message = "\n".join(splits.locate(key, message.split("\n"), line_counts))
        raise RewriteFailed(message, payload["status"]) from None
    finally:
        if side_files:
            rewritten.unpersist()

    kept = counts.value
    dropped = sum(v for k, v in kept.items() if k.startswith("in ")) - sum(v for k, v in kept.items() if k.startswith("out "))
    summary = Summary(reports.value, time.monotonic() - started, dropped)
    if not options.quiet:
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
