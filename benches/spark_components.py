"""Rounds and time of the cluster path's connected components (`--collapse --classes cluster`).

    target/venvs/spark/bin/python benches/spark_components.py [VERTICES...]
    (default 1000 10000 100000)

(.ci/spark.sh creates that virtual environment.) For each size, in local[2], a Markdown row:
the large-star/small-star rounds `pidcanon_spark.connected_components` needed and its wall
time, on two graphs of that many vertices numbered at random, as the job numbers IRIs by a
hash: one chain (the longest path, the worst case for rounds), and pairs joined into classes
of LOD-a-lot-like sizes (64 % of 2, a few large; closer to real sameAs data). The components
are checked against a union-find on the driver. The rounds are the algorithm's (they do not
depend on the machine); the times are those of this machine, with Spark's fixed cost per job.
"""

import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "spark"))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "spark", "tests"))

import pidcanon_spark  # noqa: E402
from test_classes import union_find_components  # noqa: E402  (the tests' reference)


def chain(n, rnd):
    ids = rnd.sample(range(1 << 62), n)
    return [(ids[i], ids[i + 1]) for i in range(n - 1)]


def classes(n, rnd):
    """Classes of sizes 2 (64 %), 3–10 and a few up to n/100, each a random tree."""
    ids, edges, start = rnd.sample(range(1 << 62), n), [], 0
    while start < n - 1:
        size = 2 if rnd.random() < 0.64 else min(int(2 + rnd.paretovariate(1.2)), max(2, n // 100))
        members = ids[start : start + size]
        edges += [(members[i], rnd.choice(members[:i])) for i in range(1, len(members))]
        start += size
    return edges


def main(sizes):
    spark = pidcanon_spark.local_session("local[2]", "components bench", [("spark.ui.showConsoleProgress", "false")])
    sc = spark.sparkContext
    rnd = random.Random(11)
    print("| graph | vertices | edges | rounds | wall s |")
    print("|---|---|---|---|---|")
    try:
        for n in sizes:
            for name, make in (("chain", chain), ("classes", classes)):
                edges = make(n, rnd)
                started = time.monotonic()
                labels, rounds = pidcanon_spark.connected_components(sc.parallelize(edges, 4))
                got = dict(labels.collect())
                seconds = time.monotonic() - started
                if got != union_find_components(edges):
                    raise SystemExit(f"{name} {n}: components differ from the union-find")
                print(f"| {name} | {len(got)} | {len(edges)} | {rounds} | {seconds:.1f} |", flush=True)
    finally:
        spark.stop()


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [1000, 10000, 100000])
