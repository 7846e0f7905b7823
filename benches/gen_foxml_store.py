#!/usr/bin/env python3
"""Generate a Fedora 3 objectStore of FOXML 1.1 objects, deterministically (for benches/foxml_bench.sh).

Each object looks like what Fedora 3.x writes: object properties; DC (1-2 versions); RELS-EXT
(1-3 versions, 2-6 relations in the current one, some PIDs spelled in non-canonical ways and some
Handle/DOI links, so the rewriter has work); RELS-INT in about a third of the objects; 1-3 managed
datastreams (contentLocation only, as in the objectStore); an AUDIT datastream with one record
per change. Objects are 5-12 KB, like those of a repository in production. Files are laid out as
Fedora's akubra store lays them out: two levels of hashed folders, the file named by the
URL-encoded info:fedora URI.

    python3 benches/gen_foxml_store.py --objects 100000 --out target/foxml-store
"""

import argparse
import hashlib
import os
import random
from urllib.parse import quote

RELATIONS = [
    "isMemberOf",
    "isMemberOfCollection",
    "isPartOf",
    "hasConstituent",
    "isDerivationOf",
    "isDescriptionOf",
]


def date(rng, year):
    return "%d-%02d-%02dT%02d:%02d:%02d.%03dZ" % (
        year,
        rng.randint(1, 12),
        rng.randint(1, 28),
        rng.randint(0, 23),
        rng.randint(0, 59),
        rng.randint(0, 59),
        rng.randint(0, 999),
    )


def target(rng, n):
    """A related object, sometimes spelled as other tools wrote it."""
    other = rng.randrange(n)
    roll = rng.random()
    if roll < 0.1:
        return "info:fedora/demo%%3A%d" % other
    if roll < 0.15:
        return "hdl:10013/demo.%d" % other
    if roll < 0.2:
        return "https://doi.org/10.5072/DEMO.%d" % other
    return "info:fedora/demo:%d" % other


def rels_ext(rng, pid, n, version, created):
    lines = [
        '<fedora-model:hasModel rdf:resource="info:fedora/demo:Model%d"/>' % rng.randrange(5)
    ]
    for _ in range(rng.randint(1, 5)):
        lines.append(
            '<rel:%s rdf:resource="%s"/>' % (rng.choice(RELATIONS), target(rng, n))
        )
    return """    <foxml:datastreamVersion ID="RELS-EXT.%d" LABEL="Relationships" CREATED="%s" MIMETYPE="application/rdf+xml" FORMAT_URI="info:fedora/fedora-system:FedoraRELSExt-1.0" SIZE="%d">
      <foxml:xmlContent>
<rdf:RDF xmlns:fedora-model="info:fedora/fedora-system:def/model#" xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:rel="info:fedora/fedora-system:def/relations-external#">
  <rdf:Description rdf:about="info:fedora/%s">
    %s
  </rdf:Description>
</rdf:RDF>
      </foxml:xmlContent>
    </foxml:datastreamVersion>
""" % (version, created, 300 + 80 * len(lines), pid, "\n    ".join(lines))


def obj(rng, i, n):
    pid = "demo:%d" % i
    created = date(rng, 2009)
    modified = date(rng, 2012)
    parts = [
        """<?xml version="1.0" encoding="UTF-8"?>
<foxml:digitalObject VERSION="1.1" PID="%s"
  xmlns:foxml="info:fedora/fedora-system:def/foxml#"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xsi:schemaLocation="info:fedora/fedora-system:def/foxml# http://www.fedora.info/definitions/1/0/foxml1-1.xsd">
  <foxml:objectProperties>
    <foxml:property NAME="info:fedora/fedora-system:def/model#state" VALUE="Active"/>
    <foxml:property NAME="info:fedora/fedora-system:def/model#label" VALUE="Item %d of the demo collection"/>
    <foxml:property NAME="info:fedora/fedora-system:def/model#ownerId" VALUE="fedoraAdmin"/>
    <foxml:property NAME="info:fedora/fedora-system:def/model#createdDate" VALUE="%s"/>
    <foxml:property NAME="info:fedora/fedora-system:def/view#lastModifiedDate" VALUE="%s"/>
  </foxml:objectProperties>
"""
        % (pid, i, created, modified)
    ]
    changes = []
    parts.append(
        '  <foxml:datastream ID="DC" STATE="A" CONTROL_GROUP="X" VERSIONABLE="true">\n'
    )
    for v in range(rng.randint(1, 2)):
        when = date(rng, 2010 + v)
        changes.append(("DC", when))
        parts.append(
            """    <foxml:datastreamVersion ID="DC.%d" LABEL="Dublin Core Record for this object" CREATED="%s" MIMETYPE="text/xml" FORMAT_URI="http://www.openarchives.org/OAI/2.0/oai_dc/" SIZE="512">
      <foxml:xmlContent>
<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.openarchives.org/OAI/2.0/oai_dc/ http://www.openarchives.org/OAI/2.0/oai_dc.xsd">
  <dc:title>Item %d of the demo collection, version %d</dc:title>
  <dc:creator>Digital Collections Services</dc:creator>
  <dc:subject>Photographs; Campus buildings; %d</dc:subject>
  <dc:description>A photograph from the demo collection, digitized in %d. Scanned at 600 dpi from the original print; colour corrected.</dc:description>
  <dc:date>19%02d</dc:date>
  <dc:type>StillImage</dc:type>
  <dc:identifier>%s</dc:identifier>
  <dc:rights>In copyright; educational use permitted.</dc:rights>
</oai_dc:dc>
      </foxml:xmlContent>
    </foxml:datastreamVersion>
"""
            % (v, when, i, v, i % 97, 2010 + v, i % 100, pid)
        )
    parts.append("  </foxml:datastream>\n")
    parts.append(
        '  <foxml:datastream ID="RELS-EXT" STATE="A" CONTROL_GROUP="X" VERSIONABLE="true">\n'
    )
    for v in range(rng.randint(1, 3)):
        when = date(rng, 2010 + v)
        changes.append(("RELS-EXT", when))
        parts.append(rels_ext(rng, pid, n, v, when))
    parts.append("  </foxml:datastream>\n")
    managed = ["OBJ", "TN", "MODS"][: rng.randint(1, 3)]
    if rng.random() < 0.33:
        when = date(rng, 2011)
        changes.append(("RELS-INT", when))
        about = "".join(
            """  <rdf:Description rdf:about="info:fedora/%s/%s">
    <rel:isDerivationOf rdf:resource="info:fedora/%s/OBJ"/>
  </rdf:Description>
"""
            % (pid, ds, pid)
            for ds in managed[1:] or ["OBJ"]
        )
        parts.append(
            """  <foxml:datastream ID="RELS-INT" STATE="A" CONTROL_GROUP="X" VERSIONABLE="true">
    <foxml:datastreamVersion ID="RELS-INT.0" LABEL="Datastream relationships" CREATED="%s" MIMETYPE="application/rdf+xml" FORMAT_URI="info:fedora/fedora-system:FedoraRELSInt-1.0" SIZE="400">
      <foxml:xmlContent>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:rel="info:fedora/fedora-system:def/relations-external#">
%s</rdf:RDF>
      </foxml:xmlContent>
    </foxml:datastreamVersion>
  </foxml:datastream>
"""
            % (when, about)
        )
    for ds in managed:
        when = date(rng, 2010)
        changes.append((ds, when))
        mime = {"OBJ": "image/tiff", "TN": "image/jpeg", "MODS": "text/xml"}[ds]
        parts.append(
            """  <foxml:datastream ID="%s" STATE="A" CONTROL_GROUP="M" VERSIONABLE="true">
    <foxml:datastreamVersion ID="%s.0" LABEL="%s" CREATED="%s" MIMETYPE="%s" SIZE="%d">
      <foxml:contentDigest TYPE="MD5" DIGEST="%s"/>
      <foxml:contentLocation TYPE="INTERNAL_ID" REF="%s+%s+%s.0"/>
    </foxml:datastreamVersion>
  </foxml:datastream>
"""
            % (
                ds,
                ds,
                ds,
                when,
                mime,
                rng.randrange(10**4, 10**8),
                hashlib.md5(("%s%s" % (pid, ds)).encode()).hexdigest(),
                pid,
                ds,
                ds,
            )
        )
    records = "".join(
        """<audit:record ID="AUDREC%d">
  <audit:process type="Fedora API-M"/>
  <audit:action>%s</audit:action>
  <audit:componentID>%s</audit:componentID>
  <audit:responsibility>fedoraAdmin</audit:responsibility>
  <audit:date>%s</audit:date>
  <audit:justification>Batch update of the demo collection</audit:justification>
</audit:record>
"""
        % (k + 1, "modifyDatastreamByValue" if k else "addDatastream", ds, when)
        for k, (ds, when) in enumerate(sorted(changes, key=lambda c: c[1]))
    )
    parts.append(
        """  <foxml:datastream ID="AUDIT" STATE="A" CONTROL_GROUP="X" VERSIONABLE="false">
    <foxml:datastreamVersion ID="AUDIT.0" LABEL="Audit Trail for this object" CREATED="%s" MIMETYPE="text/xml" FORMAT_URI="info:fedora/fedora-system:format/xml.fedora.audit">
      <foxml:xmlContent>
<audit:auditTrail xmlns:audit="info:fedora/fedora-system:def/audit#">
%s</audit:auditTrail>
      </foxml:xmlContent>
    </foxml:datastreamVersion>
  </foxml:datastream>
</foxml:digitalObject>
"""
        % (created, records)
    )
    return pid, "".join(parts)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--objects", type=int, default=100_000)
    parser.add_argument("--out", default="target/foxml-store")
    parser.add_argument("--seed", type=int, default=12)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    total = 0
    for i in range(args.objects):
        pid, text = obj(rng, i, args.objects)
        uri = "info:fedora/" + pid
        digest = hashlib.md5(uri.encode()).hexdigest()
        folder = os.path.join(args.out, digest[:2], digest[2:4])
        os.makedirs(folder, exist_ok=True)
        data = text.encode()
        total += len(data)
        with open(os.path.join(folder, quote(uri, safe="")), "wb") as f:
            f.write(data)
    print("%d objects, %.1f MB, in %s" % (args.objects, total / 1e6, args.out))


if __name__ == "__main__":
    main()
