"""The weight layout of the structural SVMs: one flat vector ``θ`` over a chain model's arrays.

Both ``svm`` and ``cosvm`` keep the primal weights ``w = w_0 + Σ α δΦ``
explicitly; :class:`Layout` says where each :class:`~tagtool.learn.chain.ChainModel`
array lives in ``θ`` (emissions ``W[k, l]`` first, then per view ``trans``,
``start``, ``end``), so that a joint-feature difference ``δΦ`` is a sparse
vector over ``θ``'s indices and views of ``θ`` are the arrays the kernels update.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tagtool.learn.chain import ChainModel


@dataclass(frozen=True)
class Layout:
    """Where each :class:`ChainModel` array lives in the flat vector ``θ``.

    ``θ[k·L + l]`` is ``weights[k, l]``; view ``v``'s block starts at
    ``block(v) = F·L + v·(L² + 2L)`` and holds ``trans[v]`` (row-major),
    ``start[v]`` and ``end[v]``.
    """

    n_features: int
    n_labels: int
    n_views: int

    @property
    def n_emission(self) -> int:
        return self.n_features * self.n_labels

    @property
    def block_size(self) -> int:
        return self.n_labels * (self.n_labels + 2)

    @property
    def size(self) -> int:
        return self.n_emission + self.n_views * self.block_size

    def block(self, view: int) -> int:
        return self.n_emission + view * self.block_size

    def weights(self, theta: np.ndarray) -> np.ndarray:
        return theta[: self.n_emission].reshape(self.n_features, self.n_labels)

    def chain(self, theta: np.ndarray, view: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Views into ``θ`` of ``(trans, start, end)`` of ``view`` (contiguous)."""
        base, n = self.block(view), self.n_labels
        trans = theta[base : base + n * n].reshape(n, n)
        start = theta[base + n * n : base + n * n + n]
        end = theta[base + n * n + n : base + n * n + 2 * n]
        return trans, start, end

    def from_model(self, model: ChainModel) -> np.ndarray:
        """``θ`` of a model's arrays (the warm-start offset ``w_0``)."""
        theta = np.zeros(self.size)
        self.weights(theta)[...] = model.weights
        for v in range(self.n_views):
            trans, start, end = self.chain(theta, v)
            trans[...], start[...], end[...] = model.trans[v], model.start[v], model.end[v]
        return theta

    def to_model(self, theta: np.ndarray, labels, feature_view: np.ndarray) -> ChainModel:
        model = ChainModel.zeros(labels, self.n_features, feature_view, n_views=self.n_views)
        model.weights[...] = self.weights(theta)
        for v in range(self.n_views):
            trans, start, end = self.chain(theta, v)
            model.trans[v], model.start[v], model.end[v] = trans, start, end
        return model
