#!/usr/bin/env python3
"""Turns an N-Triples corpus (from gen_corpus.py) into one where 1 statement in EVERY (default
100) is an owl:sameAs statement between IRIs of the corpus: the subject of the statement before
and an IRI (object, else subject) of a statement 37 lines earlier. The statement count stays the
same. Deterministic.

usage: sameas_corpus.py [--every N] < corpus.nt > corpus-sameas.nt
"""
import argparse
import re
import sys

SAME_AS = "<http://www.w3.org/2002/07/owl#sameAs>"
IRI = re.compile(rb"<([^>]*)>")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=int, default=100)
    args = parser.parse_args()
    recent: list[tuple[bytes, bytes]] = []  # (subject, another IRI) of the last 64 statements
    out = sys.stdout.buffer
    for number, line in enumerate(sys.stdin.buffer, 1):
        iris = IRI.findall(line) if line.startswith(b"<") else []
        if number % args.every == 0 and len(recent) >= 37:
            subject = recent[-1][0]
            other = recent[-37][1]
            if subject != other:
                out.write(b"<" + subject + b"> " + SAME_AS.encode() + b" <" + other + b"> .\n")
                continue
        out.write(line)
        if len(iris) >= 2:
            recent.append((iris[0], iris[2] if len(iris) > 2 else iris[0]))
            del recent[:-64]


if __name__ == "__main__":
    main()
