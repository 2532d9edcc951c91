"""Counts the words a slide holds as native, editable text."""

from collections.abc import Iterator

from refig.plugin import Artifact, Metric, MetricValue
from refig_toolkit_pptx import object_tree


class WordCount(Metric):
    """``native_words``: words in text boxes, shapes and tables; ``text_objects``: objects with text."""

    version = "1"

    def compute(self, artifact: Artifact) -> Iterator[MetricValue]:
        tree = object_tree(artifact)  # the slide's objects, when the artifact is a slide
        if tree is None:
            reason = {"reason": "no object tree (the artifact failed the gate)"}
            for name in ("native_words", "text_objects"):
                yield MetricValue(artifact_sha256=artifact.sha256, metric="{{ cookiecutter.name }}",
                                  name=name, value=None, version=self.version, detail=reason)
            return
        texts = [obj.text for obj in tree.shown() if obj.text.strip()]  # what shows
        words = sum(len(text.split()) for text in texts)
        for name, value in (("native_words", words), ("text_objects", len(texts))):
            yield MetricValue(artifact_sha256=artifact.sha256, metric="{{ cookiecutter.name }}",
                              name=name, value=float(value), version=self.version)
