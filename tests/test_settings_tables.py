"""Every setting is declared once, in its table, and everything that reads settings follows the tables.

* A learner's constructor and its ``params`` table name the same parameters
  with the same defaults; so do the feature extractor's, the view split's
  and decoding's; no module keeps its own tuple of a table's choices.
* Every setting of every table, given every kind of bad value — through
  ``--set`` on the command line, the ``KEY=VALUE`` parser and the dict path
  (stored settings, keyword arguments) — is refused with one line naming
  it, never a traceback, and on the command line before any data are read
  (the data file does not even exist) with exit status 2.
* Old names (``epochs``, ``seed``, ``max_iterations`` ...) are still read,
  with a deprecation warning.
"""

from __future__ import annotations

import ast
import inspect
import logging
import pathlib

import pytest

import tagtool
from tagtool.cli.main import main
from tagtool.core.features import FeatureExtractor
from tagtool.core.params import Param, SettingError
from tagtool.core.views import VIEW_PARAMS, VIEW_SPLIT_KINDS
from tagtool.learn import InvalidParameterError, available_learners, get_learner, make_learner
from tagtool.learn.chain import DECODE_DEFAULTS, DECODE_PARAMS, ChainModel
from tagtool.services.settings import SHARED_TABLES, current_names, parse_settings

PACKAGE = pathlib.Path(tagtool.__file__).parent
LEARNERS = available_learners()
DATA = pathlib.Path(__file__).parent / "data" / "conll2000_train_head.txt"


def _signature_defaults(function, skip=("self",)) -> dict:
    return {n: p.default for n, p in inspect.signature(function).parameters.items() if n not in skip}


# ---------------------------------------------------------------------------
# (a) declared in the table and nowhere else


@pytest.mark.parametrize("name", list(LEARNERS))
def test_a_learners_constructor_and_table_agree(name):
    cls = LEARNERS[name]
    assert _signature_defaults(cls.__init__) == cls.params.defaults(), f"{name}: __init__ and params differ"
    assert cls.param_names() == cls.params.names() and cls.param_defaults() == cls.params.defaults()
    assert cls.params.owner == name, "errors name the learner"
    cls().check_params()  # every default is inside its own range


def test_the_shared_tables_agree_with_what_they_configure():
    extractor = _signature_defaults(
        FeatureExtractor.__init__, skip=("self", "representations", "gazetteers", "vectors")
    )
    assert extractor == SHARED_TABLES["features"].defaults() and FeatureExtractor.params is SHARED_TABLES["features"]
    assert VIEW_SPLIT_KINDS == VIEW_PARAMS["kind"].choices
    assert DECODE_DEFAULTS == DECODE_PARAMS.defaults()
    assert ChainModel.__dataclass_fields__["bio_constraint"].default == DECODE_PARAMS["bio_constraint"].default


def test_every_learner_uses_the_common_names():
    """One name per concept: passes are max_iter, the seed random_state; the old names are aliases only."""
    retired = {
        "epochs",
        "max_epochs",
        "max_iterations",
        "max_alternations",
        "seed",
        "supervised_iterations",
        "cu_epochs",
    }
    for name, cls in LEARNERS.items():
        assert not retired & set(cls.params.names()), name
        assert set(cls.params.aliases) <= retired, name
        if name != "hmm":  # the HMM counts in closed form: no passes, no seed
            assert "max_iter" in cls.params, name


#: Names that held a choice, a range or a help text beside the tables before the tables existed.
RETIRED_DECLARATIONS = (
    "LOSSES",
    "RESCALINGS",
    "NORMS",
    "QP_SOLVERS",
    "SETTINGS_HELP",
    "pass_param",
    "seed_param",
    "param_specs",
    "parse_value",
)


def _choice_sets() -> dict[frozenset, str]:
    tables = [*SHARED_TABLES.values(), *(cls.params for cls in LEARNERS.values())]
    return {
        frozenset(p.choices): f"{t.owner}.{p.name}" for t in tables for p in t if len(p.choices) > 1 and p.type is str
    }  # numbers such as (1, 2) are too common to be a declaration


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path.relative_to(PACKAGE).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


def test_no_setting_is_declared_outside_its_table():
    """No module keeps a tuple of a table's choices, nor the retired names that held them."""
    choices = _choice_sets()
    found = []
    for relative, tree in _modules():
        in_param = {
            id(k.value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Param"
            for k in node.keywords
            if k.arg == "choices"
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id in RETIRED_DECLARATIONS:
                found.append(f"{relative}:{node.lineno} {node.id}")
            if isinstance(node, ast.Attribute) and node.attr in RETIRED_DECLARATIONS:
                found.append(f"{relative}:{node.lineno} .{node.attr}")
            if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and id(node) not in in_param:
                values = [e.value for e in node.elts if isinstance(e, ast.Constant)]
                if len(values) == len(node.elts) > 1 and frozenset(values) in choices:
                    found.append(f"{relative}:{node.lineno} the choices of {choices[frozenset(values)]}")
    assert not found, found


def test_the_settings_form_reads_no_docstring():
    source = (PACKAGE / "gui" / "settings_form.py").read_text(encoding="utf-8")
    assert "__doc__" not in source and "import re" not in source


# ---------------------------------------------------------------------------
# (b) every bad value of every setting: one line naming it


def _all_settings():
    """``(learner, prefix, param)`` of every setting: each learner's own, the shared ones with one learner."""
    for name, cls in LEARNERS.items():
        for param in cls.params:
            yield name, "", param
    for group, table in SHARED_TABLES.items():
        for param in table:
            yield "crf", f"{group}.", param


def _bad_texts(param: Param) -> dict[str, str]:
    """Every kind of bad text for ``param``: wrong type, out of range, not a choice, none where not optional."""
    bad = {}
    if param.type is int:
        bad.update(word="two", fraction="2.5")
    elif param.type is float:
        bad.update(word="fast", nan="nan", inf="inf")
    elif param.type is bool:
        bad.update(word="maybe", number="2")
    if param.choices:
        bad["not a choice"] = "no-such-choice"
    if param.low is not None:
        bad["below"] = repr(param.low if param.low_open else param.low - 1)
    if param.high is not None:
        bad["above"] = repr(param.high if param.high_open else param.high + 1)
    if not param.optional and param.type is not str:
        bad["none"] = "none"
    return bad


def _bad_values(param: Param) -> dict[str, object]:
    """Every kind of bad Python value for ``param`` (stored settings, keyword arguments)."""
    bad: dict[str, object] = {"a list": [1]} if param.type is not list else {"numbers": [1, 2]}
    if param.type in (int, float):
        bad.update(text="two", boolean=True)
    if param.type is int:
        bad["fraction"] = 2.5
    if param.type is bool:
        bad["number"] = 1
    if param.type is str:
        bad["number"] = 3
    if param.choices:
        bad["not a choice"] = "no-such-choice" if param.type is str else 99
    if param.low is not None:
        bad["below"] = param.low if param.low_open else param.low - 1
    if param.high is not None:
        bad["above"] = param.high if param.high_open else param.high + 1
    if not param.optional:
        bad["none"] = None
    return bad


CASES = [
    (learner, prefix + p.name, kind, text)
    for learner, prefix, p in _all_settings()
    for kind, text in _bad_texts(p).items()
]
VALUE_CASES = [
    (learner, prefix, p.name, kind, value)
    for learner, prefix, p in _all_settings()
    for kind, value in _bad_values(p).items()
]


def test_every_setting_has_bad_values_to_try():
    """Any text is a valid free text or list, so those get bad values only on the dict path."""
    tried = {(learner, key) for learner, key, _, _ in CASES}
    untried = [
        (learner, prefix + p.name)
        for learner, prefix, p in _all_settings()
        if (learner, prefix + p.name) not in tried and (p.type not in (str, list) or p.choices)
    ]
    assert not untried
    assert all(_bad_values(p) for _, _, p in _all_settings())


@pytest.mark.parametrize(("learner", "key", "kind", "text"), CASES)
def test_a_bad_value_is_one_line_naming_the_setting(learner, key, kind, text):
    with pytest.raises(SettingError) as info:
        parse_settings(get_learner(learner), [f"{key}={text}"])
    message = str(info.value)
    assert "\n" not in message and key.rpartition(".")[2] in message and key.partition(".")[0] in message


@pytest.mark.parametrize(("learner", "prefix", "name", "kind", "value"), VALUE_CASES)
def test_a_bad_stored_value_is_one_line_naming_the_setting(learner, prefix, name, kind, value):
    with pytest.raises(SettingError) as info:
        if prefix:
            SHARED_TABLES[prefix[:-1]].check({name: value}, prefix)
        else:
            make_learner(learner, **{name: value})
    message = str(info.value)
    assert "\n" not in message and f"{prefix}{name}" in message
    if not prefix:
        assert isinstance(info.value, InvalidParameterError) and message.startswith(f"{learner}: ")


@pytest.mark.parametrize("prefix", ["", "learner.", "features.", "views.", "decode."])
def test_an_unknown_name_lists_the_known_ones(prefix):
    with pytest.raises(SettingError, match=r"unknown .*no_such_setting.*\(known: "):
        parse_settings(get_learner("crf"), [f"{prefix}no_such_setting=1"])


def test_the_command_line_refuses_every_bad_value_before_reading_data(tmp_path, monkeypatch, capsys):
    """``train`` with a data file that does not exist: the setting is refused first, exit 2, one line."""
    monkeypatch.chdir(tmp_path)
    failures = []
    for learner, key, kind, text in [
        *CASES,
        ("crf", "no_such_setting", "unknown", "1"),
        ("crf", "features.no_such", "unknown", "1"),
        ("crf", "n_jobs", "issue", "two"),
    ]:
        code = main(["train", "missing.txt", "--learner", learner, "--set", f"{key}={text}", "-o", "m.tagger"])
        err = capsys.readouterr().err
        lines = [line for line in err.splitlines() if line.strip()]
        name = key.rpartition(".")[2]
        if (
            code != 2
            or len(lines) != 1
            or not lines[0].startswith("tagtool: error: ")
            or name not in lines[0]
            or "missing.txt" in err
            or "Traceback" in err
        ):
            failures.append((learner, key, kind, code, err))
    assert not failures, failures[:5]
    assert not (tmp_path / "m.tagger").exists()


def test_none_is_allowed_where_declared_optional():
    """entropy-crf's balance=none is the paper's objective; crf's n_jobs=none two threads."""
    settings = parse_settings(get_learner("entropy-crf"), ["balance=none", "n_jobs=none", "views.kind=none"])
    assert settings.params == {"balance": None, "n_jobs": None} and settings.views == {"kind": None}
    assert make_learner("entropy-crf", balance=None).balance is None


# ---------------------------------------------------------------------------
# (c) old names are still read, with a deprecation warning


OLD_NAMES = [
    ("perceptron", "epochs", "max_iter"),
    ("perceptron", "seed", "random_state"),
    ("mv-perceptron", "epochs", "max_iter"),
    ("svm", "max_epochs", "max_iter"),
    ("cosvm", "max_epochs", "max_iter"),
    ("cosvm", "cu_epochs", "cu_ramp_iter"),
    ("crf", "max_iterations", "max_iter"),
    ("entropy-crf", "max_iterations", "max_iter"),
    ("entropy-crf", "supervised_iterations", "supervised_max_iter"),
    ("wdpsl", "max_alternations", "max_iter"),
]


@pytest.mark.parametrize(("learner", "old", "new"), OLD_NAMES)
def test_an_old_name_is_read_as_the_new_one_with_a_warning(learner, old, new, caplog):
    with caplog.at_level(logging.WARNING):
        assert parse_settings(get_learner(learner), [f"{old}=3"]).params == {new: 3}
        assert make_learner(learner, **{old: 2}).get_params()[new] == 2
        assert current_names(learner, {old: 4}) == {new: 4}
    assert f"{old} is deprecated: it is now called {new}" in caplog.text


def test_views_seed_is_read_as_random_state(caplog):
    with caplog.at_level(logging.WARNING):
        assert parse_settings(get_learner("cosvm"), ["views.seed=4"]).views == {"random_state": 4}
    assert "views.seed is deprecated" in caplog.text


def test_a_value_under_both_names_is_refused():
    with pytest.raises(SettingError, match="given twice"):
        make_learner("perceptron", epochs=2, max_iter=3)


def test_train_with_an_old_name_warns_and_stores_the_new_one(tmp_path, capsys, caplog):
    from tagtool.tagger.model import load_tagger

    model = tmp_path / "m.tagger"
    with caplog.at_level(logging.WARNING):  # the command line logs to stderr: "WARNING tagtool.core.params: ..."
        code = main(
            [
                "train",
                str(DATA),
                "--learner",
                "perceptron",
                "--set",
                "epochs=1",
                "--set",
                "seed=3",
                "--set",
                "features.min_count=1",
                "-o",
                str(model),
            ]
        )
    assert code == 0, capsys.readouterr().err
    assert "epochs is deprecated: it is now called max_iter" in caplog.text and "seed is deprecated" in caplog.text
    params = load_tagger(model).model.params
    assert params["max_iter"] == 1 and params["random_state"] == 3 and "epochs" not in params


def test_a_project_model_stored_under_old_names_is_read_under_the_new(tmp_path, caplog):
    """A project's stored models keep the parameters they were trained with, old names included."""
    from tagtool.store import Project
    from tagtool.store.sample import sample_corpus

    with Project.create(tmp_path / "p.tagproj", sample_corpus()) as project:
        project.stored.add_model("perceptron", {"epochs": 2, "seed": 1, "averaged": True}, {}, b"model")
        record = project.stored.models()[-1]
    with caplog.at_level(logging.WARNING):
        params = current_names(record.learner, record.params)
    assert params == {"max_iter": 2, "random_state": 1, "averaged": True}
    assert make_learner(record.learner, **record.params).max_iter == 2
    assert "epochs is deprecated" in caplog.text


# ---------------------------------------------------------------------------
# the listings generated from the tables


def test_tagtool_settings_lists_a_learners_table(capsys):
    assert main(["settings", "crf"]) == 0
    out = capsys.readouterr().out
    header = out.splitlines()[1].split()
    assert header[:3] == ["name", "type", "default"]
    for param in get_learner("crf").params:
        assert any(line.split()[:1] == [param.name] for line in out.splitlines()), param.name
    assert "n_jobs    int or none  none     [1, inf)" in out and "features.NAME" in out


def test_the_markdown_reference_has_every_setting():
    from tagtool.services.settings_reference import settings_markdown

    page = settings_markdown()
    assert page.startswith("# Settings\n")
    for name, cls in LEARNERS.items():
        assert f"\n## {name}\n" in page
        assert all(f"| `{p.name}` |" in page for p in cls.params)
    assert all(f"| `{p.name}` |" in page for table in SHARED_TABLES.values() for p in table)


def test_the_help_epilog_follows_the_tables(capsys):
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "lexical-distributional" in out and "dist-dims" in out and "views.NAME=VALUE" in out
    assert all(", ".join(cls.params.names()) in out for cls in LEARNERS.values())
