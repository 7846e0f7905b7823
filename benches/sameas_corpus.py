#!/usr/bin/env python3
"""Turns an N-Triples corpus (from benches/gen_rdf.py) into one where 1 statement in EVERY (default
100) is an owl:sameAs statement between IRIs of the corpus: the subject of the statement before
and an IRI (object, else subject) of a statement 37 lines earlier. The statement count stays the
same. Deterministic.

usage: sameas_corpus.py [--every N] < corpus.nt > corpus-sameas.nt
"""
import argparse
import sys

SAME_AS = "<http://www.w3.org/2002/07/owl#sameAs>"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=int, default=100)
    args = parser.parse_args()
    recent: list[tuple[bytes, bytes]] = []  # (subject, another IRI) of the last 64 statements
    out = sys.stdout.buffer
    for number, line in enumerate(sys.stdin.buffer, 1):
        iris = term_iris(line)
        if number % args.every == 0 and len(recent) >= 37:
            subject = recent[-1][0]
            other = recent[-37][1]
            if subject != other:
                out.write(b"<" + subject + b"> " + SAME_AS.encode() + b" <" + other + b"> .\n")
                continue
        out.write(line)
        if iris:
            recent.append(iris)
            del recent[:-64]


def term_iris(line: bytes) -> tuple[bytes, bytes] | None:
    """The subject IRI of a statement and its object IRI (else the subject again)."""
    parts = line.split(b" ", 2)
    if len(parts) < 3 or not parts[0].startswith(b"<"):
        return None
    subject = parts[0][1:-1]
    rest = parts[2]
    obj = rest[1 : rest.index(b">")] if rest.startswith(b"<") else subject
    return subject, obj


if __name__ == "__main__":
    main()
