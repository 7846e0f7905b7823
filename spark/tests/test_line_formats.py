"""N-Triples/N-Quads through RDD.pipe, compared with a single-machine `pidcanon rewrite`."""

from conftest import copy_example, job, part_files, read_parts, reference


def test_without_dedup_output_is_the_single_machine_output_line_for_line(spark, corpus, tmp_path):
    _, parts = corpus
    lines, summary = job(spark, tmp_path, parts, "--min-partitions", "5")
    expected, report = reference("-i", "nt", *part_files(parts))
    assert len(lines) == len(expected) == 20000
    # Part files in order follow the input files in order: equal even before sorting.
    assert lines == expected
    assert sorted(lines) == sorted(expected)
    totals = summary.as_json()
    for key in ("statements_read", "statements_written", "invalid_identifiers", "rewritten", "rewritten_total", "syntax_errors"):
        assert totals[key] == report[key], key
    assert totals["duplicates_dropped"] == 0


def test_dedup_output_as_a_set_equals_single_machine_dedup(spark, corpus, tmp_path):
    _, parts = corpus
    lines, summary = job(spark, tmp_path, parts, "--min-partitions", "5", "--dedup")
    expected, report = reference("--dedup", *part_files(parts))
    assert len(lines) == len(set(lines)) == len(expected)
    # The corpus spells some literals two ways (escaped and not): the job keeps each
    # statement's first line in the input's order, as pidcanon does; only the order differs.
    assert sorted(lines) == sorted(expected)
    assert lines != expected
    assert report["duplicates_dropped"] > 0
    assert summary.as_json()["duplicates_dropped"] == report["duplicates_dropped"]
    assert summary.as_json()["statements_written"] == report["statements_written"]


def test_map_and_links_are_deduplicated_across_partitions(spark, corpus, tmp_path):
    _, parts = corpus
    lines, _ = job(spark, tmp_path, parts, "--min-partitions", "6", "--map", tmp_path / "map", "--links", tmp_path / "links")
    ref_map, ref_links = tmp_path / "ref.tsv", tmp_path / "ref-links.nt"
    expected, _ = reference("--map", ref_map, "--links", ref_links, *part_files(parts))
    assert lines == expected
    spark_map = read_parts(tmp_path / "map")
    assert len(spark_map) == len(set(spark_map)) > 100
    assert sorted(spark_map) == sorted(ref_map.read_text().splitlines())
    assert sorted(read_parts(tmp_path / "links")) == sorted(ref_links.read_text().splitlines())


def test_policy_flags_and_file_reach_every_process(spark, corpus, tmp_path):
    whole, _ = corpus
    policy = tmp_path / "policy.toml"
    policy.write_text('handle_form = "https"\n')
    lines, _ = job(spark, tmp_path, whole, "--min-partitions", "3", "--policy", policy, "--doi-form", "hdl", "--poi-oai", "oai")
    expected, _ = reference("--policy", policy, "--doi-form", "hdl", "--poi-oai", "oai", whole)
    default, _ = reference(whole)
    assert lines == expected
    assert lines != default
    assert any("https://hdl.handle.net/" in l for l in lines)


def test_nquads_example_with_compressed_output(spark, tmp_path):
    # fixtures/examples/repository.nt read as N-Quads, written as N-Quads, gzip part files.
    src = copy_example("repository.nt", tmp_path)
    lines, summary = job(spark, tmp_path, src, "-i", "nq", "--to", "nq", "--compression", "gzip", "--min-partitions", "3")
    expected, report = reference("-i", "nq", "--to", "nq", src)
    assert lines == expected
    assert summary.as_json()["rewritten"] == report["rewritten"]
    assert all(p.name.endswith(".gz") for p in (tmp_path / "out").glob("part-*"))


def test_whole_files_give_the_same_output_and_counts(spark, corpus, tmp_path):
    # --split files: each file (plain, .gz, .bz2) fed whole to one process.
    _, parts = corpus
    lines, summary = job(spark, tmp_path, parts, "--split", "files", "--map", tmp_path / "map")
    expected, report = reference("-i", "nt", *part_files(parts))
    assert lines == expected
    totals = summary.as_json()
    for key in ("statements_read", "statements_written", "invalid_identifiers", "rewritten"):
        assert totals[key] == report[key], key
    assert len(read_parts(tmp_path / "map")) > 100
