"""A training-run state for tests that only want the result: no progress shown, never stopped."""


class QuietRun:
    """The state :func:`tagtool.gui.training.run_training` reports to, doing nothing."""

    def progress(self, fraction, message=""):
        pass

    def should_stop(self):
        return False

    def model_ready(self, result):
        pass
