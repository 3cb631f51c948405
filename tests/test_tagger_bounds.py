"""Tagger files are bounded before anything is allocated (file-safety case 6 of benchmarks/reliability.py).

Each hostile file is refused with :class:`TaggerFileError`, and the peak of
the memory Python and numpy reserved while refusing it (``tracemalloc``)
stays small: the sizes a file announces are checked against what it really
holds before memory is reserved for them.
"""

from __future__ import annotations

import io
import json
import struct
import tracemalloc
import zipfile
import zlib

import numpy as np
import pytest

from tagtool.cli.main import main
from tagtool.core.corpus import Corpus, Sentence
from tagtool.core.features import FeatureError, FeatureExtractor
from tagtool.core.features.settings import MAX_WINDOW
from tagtool.learn.chain import ChainModel
from tagtool.tagger import limits as tagger_limits
from tagtool.tagger.file_format import TaggerFileError
from tagtool.tagger.model import Tagger, load_tagger

#: Memory a refusal may take (the budget of a small file is ~ 1100 × its size + 1 MiB).
PEAK_LIMIT = 32 * 2**20


def _tiny_tagger(**features) -> Tagger:
    sentences = [Sentence(("a", "b", "c"), (frozenset({"X"}), frozenset({"Y"}), frozenset({"X"})))]
    corpus = Corpus.from_sentences(sentences)
    extractor = FeatureExtractor(min_count=1, **features).fit(corpus)
    model = ChainModel.zeros(corpus.labels, extractor.n_features_, np.zeros(extractor.n_features_, np.int8), 1)
    return Tagger(corpus.labels, extractor, None, model)


def _members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _zip(members: dict[str, bytes], compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=compression) as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return out.getvalue()


def _with_meta(data: bytes, edit) -> bytes:
    members = _members(data)
    meta = json.loads(members["meta.json"])
    edit(meta)
    members["meta.json"] = json.dumps(meta).encode()
    return _zip(members)


def _refused(tmp_path, data: bytes, match: str) -> int:
    """Load ``data`` as a tagger file; the TaggerFileError must match; returns the traced peak."""
    path = tmp_path / "hostile.tagger"
    path.write_bytes(data)
    tracemalloc.start()
    try:
        with pytest.raises(TaggerFileError, match=match):
            load_tagger(path)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_window_of_a_billion_is_refused_before_the_lookup_is_built(tmp_path):
    data = _with_meta(_tiny_tagger().to_bytes(), lambda m: m["features"]["params"].update(window=10**9))
    assert _refused(tmp_path, data, "window: expected an int in \\[0, 64\\]") < PEAK_LIMIT


def test_tag_with_a_window_of_a_billion_is_a_one_line_error(tmp_path, capsys):
    data = _with_meta(_tiny_tagger().to_bytes(), lambda m: m["features"]["params"].update(window=10**9))
    (tmp_path / "m.tagger").write_bytes(data)
    (tmp_path / "small.txt").write_text("a\nb\n", encoding="utf-8")
    assert main(["tag", str(tmp_path / "m.tagger"), str(tmp_path / "small.txt")]) != 0
    assert "window: expected an int in [0, 64]" in capsys.readouterr().err


def test_training_refuses_a_window_the_loader_would_refuse():
    with pytest.raises(FeatureError, match="window: expected an int in \\[0, 64\\]"):
        _tiny_tagger(window=MAX_WINDOW + 1)


def test_a_huge_n_hash_not_backed_by_weights_is_refused_before_allocation(tmp_path):
    data = _with_meta(
        _tiny_tagger(hashing=True, n_hash=64).to_bytes(), lambda m: m["features"]["params"].update(n_hash=2**28)
    )
    assert _refused(tmp_path, data, "feature extractor has 268435456 features") < PEAK_LIMIT


def test_a_vocabulary_longer_than_the_weights_is_refused(tmp_path):
    data = _with_meta(
        _tiny_tagger().to_bytes(), lambda m: m["features"]["vocabulary"].extend(f"w=x{i}" for i in range(1000))
    )
    _refused(tmp_path, data, "array 'weights' has shape .*features")


def _deflated_zeros(n_bytes: int, header: bytes) -> tuple[bytes, int]:
    """A deflate stream of ``header`` then ``n_bytes`` zeros, made in chunks, and its CRC."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    chunk = bytes(2**20)
    parts, crc = [compressor.compress(header)], zlib.crc32(header)
    for _ in range(n_bytes // len(chunk)):
        parts.append(compressor.compress(chunk))
        crc = zlib.crc32(chunk, crc)
    parts.append(compressor.flush())
    return b"".join(parts), crc


def _raw_zip(entries: list[tuple[str, bytes, int, int]]) -> bytes:
    """A zip of deflated members ``(name, compressed bytes, crc, declared size)``, built by hand.

    zipfile cannot write bytes that are already compressed, nor a size that lies.
    """
    body, central = b"", b""
    for name, deflated, crc, size in entries:
        name_b = name.encode()
        fields = (8, 0, 0x21, crc, len(deflated), size, len(name_b))  # deflate, 1 Jan 1980
        central += struct.pack("<4s4H2H3L5H2L", b"PK\x01\x02", 20, 20, 0, *fields, 0, 0, 0, 0, 0, len(body)) + name_b
        body += struct.pack("<4s3H2H3L2H", b"PK\x03\x04", 20, 0, *fields, 0) + name_b + deflated
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, len(entries), len(entries), len(central), len(body), 0)
    return body + central + end


def _deflated(data: bytes) -> tuple[bytes, int]:
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    return compressor.compress(data) + compressor.flush(), zlib.crc32(data)


def test_a_nested_zip_bomb_in_the_weights_is_refused_unread(tmp_path):
    # A .npy of 64 MB of zeros, deflated inside weights.npz, itself deflated: a few KB on disk.
    size = 64 * 2**20
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False, "shape": (size // 8,)})
    deflated, crc = _deflated_zeros(size, header.getvalue())
    members = _members(_tiny_tagger().to_bytes())
    arrays = [(name, *_deflated(content), len(content)) for name, content in _members(members["weights.npz"]).items()]
    bomb = [
        e if e[0] != "weights.npy" else ("weights.npy", deflated, crc, size + len(header.getvalue())) for e in arrays
    ]
    members["weights.npz"] = _raw_zip(bomb)
    data = _zip(members)
    assert len(data) < 16 * 1024
    assert _refused(tmp_path, data, "zip bomb") < PEAK_LIMIT


def test_a_member_declaring_gigabytes_in_a_small_file_is_refused_unread(tmp_path):
    members = _members(_tiny_tagger().to_bytes())
    entries = [(name, *_deflated(content), len(content)) for name, content in members.items()]
    assert Tagger.from_bytes(_raw_zip(entries)).tag([["a"]]) == [["X"]]  # the hand-made zip is sound
    entries[1] = (*entries[1][:3], 0xFFFF_FFF0)  # weights.npz "holds 4 GB"
    assert _refused(tmp_path, _raw_zip(entries), "'weights.npz' .*zip bomb") < PEAK_LIMIT


def test_a_meta_json_beyond_the_cap_is_refused(tmp_path, monkeypatch):
    data = _tiny_tagger().to_bytes()
    monkeypatch.setattr(tagger_limits, "MAX_META_BYTES", 100)
    _refused(tmp_path, data, "'meta.json' declares .* more than the 100 a tagger file may hold")


def test_a_small_deflated_meta_json_that_parses_into_a_huge_structure_is_refused_unparsed(tmp_path):
    # 8 MB of "[], " deflate to some 10 KB: parsed, two million lists take over 100 MB
    data = _with_meta(_tiny_tagger().to_bytes(), lambda meta: meta.update(pad=[[]] * 2_000_000))
    assert len(data) < 100_000
    peak = _refused(tmp_path, data, "'meta.json' declares .* more than the .* a tagger file may hold")
    assert peak < PEAK_LIMIT


def test_the_meta_json_cap_grows_with_the_file_up_to_64_mib():
    assert tagger_limits.meta_limit(10_000) == 200 * 10_000 + 2**20
    assert tagger_limits.meta_limit(2**30) == tagger_limits.MAX_META_BYTES == 64 * 2**20


@pytest.mark.parametrize("method", [zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA], ids=["bzip2", "lzma"])
def test_members_compressed_in_ways_that_inflate_unbounded_are_refused(tmp_path, method):
    data = _zip(_members(_tiny_tagger().to_bytes()), compression=method)
    _refused(tmp_path, data, "compression method")


def test_a_real_tagger_still_loads_and_tags(tmp_path):
    tagger = _tiny_tagger()
    path = tmp_path / "ok.tagger"
    tagger.save(path)
    assert load_tagger(path).tag([["a", "b"]]) == tagger.tag([["a", "b"]])


def test_tag_files_column_check_reads_meta_within_the_same_bounds(tmp_path, monkeypatch):
    # tag_file looks at the tagger's input columns before any worker loads it: that
    # first look must be bounded too (it once opened meta.json unbounded).
    from tagtool.services.batch import tag_file

    path = tmp_path / "m.tagger"
    path.write_bytes(_tiny_tagger().to_bytes())
    source = tmp_path / "in.txt"
    source.write_text("a\n", encoding="utf-8")
    monkeypatch.setattr(tagger_limits, "MAX_META_BYTES", 100)
    with pytest.raises(TaggerFileError, match="more than the 100 a tagger file may hold"):
        tag_file(path, source, tmp_path / "out.txt", "conll")
    assert not (tmp_path / "out.txt").exists()
