#!/usr/bin/env python3
"""Turns an N-Triples corpus (from benches/gen_rdf.py) into one where 1 statement in EVERY (default
10) is an owl:sameAs statement, in the shape of sameAs.cc: the links form classes of 2 to MAX
(default 50) members, most of them small (a class has k members with a probability falling as
1/k^2), each member an IRI used elsewhere in the corpus (an IRI of a statement nearby) and in no
other class. A class of k members is k - 1 links from its first member, written as they come.
The corpus's own owl:sameAs statements become rdfs:seeAlso ones, so that the classes are only
these. The statement count stays the same. Deterministic (seeded).

Members are taken from CANONICAL, the same corpus after `pidcanon rewrite` (line for line), so
that two members are never spellings of one identifier (which would join their classes).

Without CANONICAL, chains instead (the Spark tests' corpus, classes that span the whole file):
1 statement in EVERY becomes an owl:sameAs statement between the subject of the statement
before and an IRI (object, else subject) of a statement 37 lines earlier; the corpus's own
owl:sameAs statements stay.

usage: sameas_corpus.py [CANONICAL] [--every N] [--max-class K] [--seed S] < corpus.nt > out.nt
Prints the classes and members made to stderr (with CANONICAL).
"""
import argparse
import random
import sys

SAME_AS = b"<http://www.w3.org/2002/07/owl#sameAs>"
SEE_ALSO = b"<http://www.w3.org/2000/01/rdf-schema#seeAlso>"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("canonical", nargs="?")
    parser.add_argument("--every", type=int, default=10)
    parser.add_argument("--max-class", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.canonical is None:
        chains(args.every)
        return
    rng = random.Random(args.seed)
    sizes = list(range(2, args.max_class + 1))
    weights = [1 / (k * k) for k in sizes]
    used: set[bytes] = set()  # IRIs already in a class
    recent: list[bytes] = []  # IRIs of the last statements, not yet in a class
    first, size, members = b"", 0, 0  # the class being made: its first member, target, so far
    classes = total = 0
    out = sys.stdout.buffer
    canonical = open(args.canonical, "rb")
    for number, line in enumerate(sys.stdin.buffer, 1):
        canonical_line = canonical.readline()
        if number % args.every == 0:
            if members == 0 or members == size:
                # A new class: its first member, then links to it.
                first = take(recent, used)
                if first is not None:
                    size, members = rng.choices(sizes, weights)[0], 1
                    classes += 1
                    total += 1
            member = take(recent, used) if first else None
            if member is not None:
                out.write(b"<" + first + b"> " + SAME_AS + b" <" + member + b"> .\n")
                members += 1
                total += 1
                continue
        out.write(line.replace(SAME_AS, SEE_ALSO))
        recent.extend(iri for iri in term_iris(canonical_line) if iri not in used)
        del recent[:-64]
    print(f"{classes} classes, {total} members", file=sys.stderr)


def chains(every: int) -> None:
    """1 statement in `every` becomes `<subject before> owl:sameAs <an IRI 37 lines earlier>`."""
    recent: list[tuple[bytes, bytes]] = []  # (subject, another IRI) of the last 64 statements
    out = sys.stdout.buffer
    for number, line in enumerate(sys.stdin.buffer, 1):
        iris = subject_and_other(line)
        if number % every == 0 and len(recent) >= 37:
            subject = recent[-1][0]
            other = recent[-37][1]
            if subject != other:
                out.write(b"<" + subject + b"> " + SAME_AS + b" <" + other + b"> .\n")
                continue
        out.write(line)
        if iris:
            recent.append(iris)
            del recent[:-64]


def subject_and_other(line: bytes) -> tuple[bytes, bytes] | None:
    """The subject IRI of a statement and its object IRI (else the subject again)."""
    parts = line.split(b" ", 2)
    if len(parts) < 3 or not parts[0].startswith(b"<"):
        return None
    subject = parts[0][1:-1]
    rest = parts[2]
    obj = rest[1 : rest.index(b">")] if rest.startswith(b"<") else subject
    return subject, obj


def take(recent: list[bytes], used: set[bytes]) -> bytes | None:
    """The oldest recent subject not yet in a class, now in one."""
    while recent:
        iri = recent.pop(0)
        if iri not in used:
            used.add(iri)
            return iri
    return None


def term_iris(line: bytes) -> list[bytes]:
    """The subject IRI and the object IRI of a statement written `<s> <p> <o> .`, where they are
    IRIs (the predicate is left out: it would join every class it is in)."""
    parts = line.split(b" ")
    if len(parts) != 4 or parts[3].strip() != b".":
        return []
    return [t[1:-1] for t in (parts[0], parts[2]) if t.startswith(b"<") and t.endswith(b">")]


if __name__ == "__main__":
    main()
