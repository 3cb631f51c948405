"""The BIO constraint setting end to end: default, IOB1 data, --set, the tagger file, experiments, simulations."""

from __future__ import annotations

import io
import json
import pathlib
import zipfile

import pytest

from tagtool.cli.main import main
from tagtool.core import Corpus
from tagtool.core.labels import LabelSet, invalid_inside
from tagtool.core.params import SettingError
from tagtool.learn import make_learner
from tagtool.learn.chain import ChainModel, scheme_decoding
from tagtool.services.experiment.config import ExperimentConfig
from tagtool.services.experiment.runner import run_experiment
from tagtool.services.pipeline import prepare, train_tagger
from tagtool.services.settings import parse_settings
from tagtool.services.simulate.config import SimulationConfig
from tagtool.services.simulate.loop import Simulation
from tagtool.store.formats import read_corpus
from tagtool.tagger.file_format import META_MEMBER, TaggerFileError
from tagtool.tagger.model import Tagger, load_tagger
from tagtool.tagger.reading import read_meta

DATA = pathlib.Path(__file__).parent / "data" / "conll2000_train_head.txt"


@pytest.fixture(scope="module")
def gold():
    return read_corpus(DATA)


def _iob1(sentence):
    """IOB1: a chunk opens with I-X, and B-X only right after a chunk of the same type."""
    tags = [next(iter(a)) for a in sentence.annotations]
    out = []
    for t, tag in enumerate(tags):
        if tag.startswith("B-"):
            before = tags[t - 1] if t else "O"
            tag = tag if before != "O" and before[2:] == tag[2:] else "I-" + tag[2:]
        out.append(tag)
    return sentence.with_annotations([{tag} for tag in out])


def _with_meta(data: bytes, edit) -> bytes:
    """The tagger file ``data`` with its meta.json passed through ``edit``."""
    source, target = zipfile.ZipFile(io.BytesIO(data)), io.BytesIO()
    with zipfile.ZipFile(target, "w") as out:
        for name in source.namelist():
            raw = source.read(name)
            if name == META_MEMBER:
                meta = json.loads(raw)
                edit(meta)
                raw = json.dumps(meta).encode()
            out.writestr(name, raw)
    return target.getvalue()


def test_on_by_default_and_stored_in_the_meta(tagger):
    assert tagger.model.bio_constraint is True
    assert tagger.to_meta()["model"]["decode"] == {"bio_constraint": True}


def test_an_old_tagger_file_without_the_setting_decodes_constrained(tagger, gold):
    def drop(meta):
        del meta["model"]["decode"]

    old = Tagger.from_bytes(_with_meta(tagger.to_bytes(), drop))
    assert old.model.bio_constraint is True and old.tag(gold.sentences[:20]) == tagger.tag(gold.sentences[:20])


@pytest.mark.parametrize("decode", [{"bio_constraint": "yes"}, {"bio_constrain": False}, ["bio_constraint"]])
def test_a_bad_setting_in_a_file_is_a_tagger_file_error(tagger, decode):
    def spoil(meta):
        meta["model"]["decode"] = decode

    with pytest.raises(TaggerFileError, match="inconsistent tagger file|decode"):
        Tagger.from_bytes(_with_meta(tagger.to_bytes(), spoil))


def test_train_tagger_takes_the_setting_and_checks_it_before_training(gold):
    corpus = Corpus.from_sentences(gold.sentences[:20], labels=gold.labels)
    off = train_tagger(corpus, make_learner("perceptron", max_iter=1), decode={"bio_constraint": False})
    assert off.model.bio_constraint is False
    with pytest.raises(ValueError, match="unknown decode setting"):
        train_tagger(corpus, make_learner("perceptron", max_iter=1), decode={"constrained": False})


def test_iob1_annotations_turn_the_default_off_with_a_note(gold):
    iob1 = [_iob1(s) for s in gold.sentences[:40]]
    labels = LabelSet.from_observed({"O"} | {n for s in iob1 for a in s.annotations for n in a} | set(gold.labels))
    assert "B-NP" in labels  # the label set alone looks BIO
    corpus = Corpus.from_sentences(iob1, labels=labels)
    tagger = train_tagger(corpus, make_learner("perceptron", max_iter=2))
    assert tagger.model.bio_constraint is False
    assert any("BIO constraint off by default" in note for note in tagger.model.info["notes"])
    # IOB1 output keeps its chunk-opening I-X tags
    assert sum(len(invalid_inside(tags)) for tags in tagger.tag(iob1)) > 0
    forced = train_tagger(corpus, make_learner("perceptron", max_iter=2), decode={"bio_constraint": True})
    assert forced.model.bio_constraint is True


def test_only_known_labels_are_evidence_of_iob1(gold):
    def snapshot(sentences):
        return prepare(Corpus.from_sentences(sentences, labels=gold.labels), make_learner("perceptron")).snapshot

    iob1 = [_iob1(s) for s in gold.sentences[:10]]
    assert scheme_decoding(snapshot(iob1))[0] is False
    # the same sentences with every token a candidate set {its label, O}: nothing is known
    vague = [s.with_annotations([set(a) | {"O"} if a != {"O"} else {"O", "B-NP"} for a in s.annotations]) for s in iob1]
    assert scheme_decoding(snapshot(vague)) == (True, None)
    assert scheme_decoding(snapshot(gold.sentences[:10])) == (True, None)


def test_parse_settings_knows_the_decode_group():
    from tagtool.learn import get_learner

    settings = parse_settings(get_learner("perceptron"), ["decode.bio_constraint=off", "max_iter=2"])
    assert settings.decode == {"bio_constraint": False} and settings.params == {"max_iter": 2}
    with pytest.raises(SettingError, match="unknown decode setting 'decode.constrained'"):
        parse_settings(get_learner("perceptron"), ["decode.constrained=false"])
    with pytest.raises(SettingError, match="decode.bio_constraint: expected true or false"):
        parse_settings(get_learner("perceptron"), ["decode.bio_constraint=maybe"])


def test_cli_train_stores_the_setting_and_tag_honours_it(tmp_path, capsys):
    model, out_on, out_off = tmp_path / "m.tagger", tmp_path / "on.txt", tmp_path / "off.txt"
    common = ["train", str(DATA), "--learner", "perceptron", "--set", "max_iter=1"]
    assert main([*common, "--set", "decode.bio_constraint=false", "-o", str(model)]) == 0
    assert read_meta(model)["model"]["decode"] == {"bio_constraint": False}
    assert main(["tag", str(model), str(DATA), "-o", str(out_off)]) == 0
    expected = load_tagger(model).tag(read_corpus(DATA).sentences)
    assert _predicted(out_off) == expected
    assert main([*common, "-o", str(model)]) == 0
    assert read_meta(model)["model"]["decode"] == {"bio_constraint": True}
    assert main(["tag", str(model), str(DATA), "-o", str(out_on)]) == 0
    tagged = _predicted(out_on)
    assert any("I-NP" in tags for tags in tagged) and not any(invalid_inside(tags) for tags in tagged)
    capsys.readouterr()


def _predicted(path) -> list[list[str]]:
    """The last column of a column file, one list per sentence."""
    blocks = path.read_text().strip().split("\n\n")
    return [[line.split()[-1] for line in block.splitlines()] for block in blocks]


class _Spy:
    """Records ``bio_constraint`` of every model that predicts."""

    def __init__(self, monkeypatch):
        self.seen: list[bool] = []
        real = ChainModel.predict

        def predict(model, *args, **kwargs):
            self.seen.append(model.bio_constraint)
            return real(model, *args, **kwargs)

        monkeypatch.setattr(ChainModel, "predict", predict)


@pytest.mark.parametrize("decode", [{}, {"bio_constraint": False}])
def test_experiments_and_simulations_decode_as_set(gold, monkeypatch, decode):
    spy = _Spy(monkeypatch)
    config = ExperimentConfig(
        learner="perceptron",
        params={"max_iter": 1},
        decode=decode,
        labeled=(5,),
        unlabeled=(0,),
        holdout=10,
        repeats=1,
        min_length=1,
        max_length=1000,
        pool=60,
    )
    run_experiment(config, gold)
    sim = SimulationConfig(
        learner="perceptron",
        params={"max_iter": 1},
        decode=decode,
        strategy="uncertainty",
        mode="full",
        step=150,
        budget=400,
        full_data_f1=0.8,
    )
    Simulation(
        sim,
        Corpus.from_sentences(gold.sentences[:50], labels=gold.labels),
        Corpus.from_sentences(gold.sentences[50:70], labels=gold.labels),
    ).run()
    assert len(spy.seen) >= 3 and set(spy.seen) == {decode.get("bio_constraint", True)}
