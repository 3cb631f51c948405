"""The named error of the decoders."""

from __future__ import annotations

from tagtool.errors import TagtoolError


class DecoderInputError(TagtoolError, ValueError):
    """Scores, masks or options a decoder cannot work with.

    The message names the offending argument and says what was expected and
    what was given (for example ``"trans: expected shape (3, 3), got (3, 4)"``).
    """
