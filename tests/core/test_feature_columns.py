"""Which extra columns become features: inputs by default, annotation layers (CoNLL-U fields) only when named."""

from __future__ import annotations

from pathlib import Path

import pytest

from tagtool.core.corpus import Sentence
from tagtool.core.features import ANNOTATION_COLUMNS, FeatureError, FeatureExtractor, annotation_column_warnings
from tagtool.store.formats import read_corpus
from tagtool.store.formats.conllu import COLUMN_FIELDS

UD = Path(__file__).parents[1] / "data" / "ud_en_ewt_train_head.conllu"
CONLL = Path(__file__).parents[1] / "data" / "conll2000_train_head.txt"


def test_annotation_columns_are_the_conllu_fields():
    assert ANNOTATION_COLUMNS == set(COLUMN_FIELDS)


def test_conllu_fields_are_not_features_by_default():
    corpus = read_corpus(UD)  # label upos; lemma, xpos, feats, head, deprel, deps, misc are columns
    assert "xpos" in corpus.sentences[0].columns
    fx = FeatureExtractor(min_count=1).fit(corpus)
    assert fx.columns_ == ()
    assert not any(n.startswith("col:") or ":col:" in n for n in fx.feature_names_)


def test_column_file_columns_stay_features_by_default():
    fx = FeatureExtractor(min_count=1).fit(read_corpus(CONLL))
    assert fx.columns_ == ("col1",)


def test_mixed_columns_keep_the_inputs_and_drop_the_annotation_layers():
    sentence = Sentence(["He", "runs"], columns={"upos": ["PRON", "VERB"], "col1": ["PRP", "VBZ"]})
    assert FeatureExtractor(min_count=1).fit([sentence]).columns_ == ("col1",)


def test_a_named_annotation_column_is_a_feature():
    fx = FeatureExtractor(min_count=1, columns=["xpos"]).fit(read_corpus(UD))
    assert fx.columns_ == ("xpos",) and any("xpos=NNP" in n for n in fx.feature_names_)


def test_crfsuite_default_pos_column_skips_annotation_layers():
    corpus = read_corpus(UD)  # the first column is lemma: a gold layer, not a POS input
    assert FeatureExtractor("crfsuite", min_count=1).fit(corpus).columns_ == ()
    named = FeatureExtractor("crfsuite", min_count=1, pos_column="xpos").fit(corpus)
    assert named.columns_ == ("xpos",)


@pytest.mark.parametrize(
    "params, setting",
    [
        ({"columns": ["pos"]}, "features.columns"),
        ({"feature_set": "crfsuite", "pos_column": "pos"}, "features.pos_column"),
        ({"feature_set": "crfsuite+default", "columns": ["pos"]}, "features.columns"),
    ],
)
def test_an_unknown_named_column_is_an_error_listing_the_known_ones(params, setting):
    message = rf"{setting}: unknown column\(s\) 'pos' \(columns of the training data: col1;"
    with pytest.raises(FeatureError, match=message):
        FeatureExtractor(min_count=1, **params).fit(read_corpus(CONLL))


def test_named_column_on_token_only_data_says_there_are_none():
    with pytest.raises(FeatureError, match="none: the data has only tokens"):
        FeatureExtractor(columns=["col1"]).fit([["a", "b"]])


def test_warnings_name_only_annotation_layers():
    warnings = annotation_column_warnings(["col1", "xpos", "xpos", "feats"])
    assert len(warnings) == 2 and "'xpos'" in warnings[0] and "'feats'" in warnings[1]
    assert "gold annotation layer" in warnings[0]
