"""studies/poker/learning.py without training: every variant's settings are a valid learner configuration, and the
page writes from an empty runs folder, naming every run it has not measured."""
from __future__ import annotations

from farl_agents.learners.config import LearnerConfig
from studies.poker import learning


def test_every_variant_is_a_valid_configuration_with_its_own_folder():
    folders = set()
    for v in learning.VARIANTS:
        cfg = LearnerConfig(algo="td", **v.settings)
        assert cfg.episodes == v.settings["episodes"]
        argv = v.argv(learning.RUNS, 0)
        assert argv[:3] == ["train", "poker", "--algo"] and "seed=0" in argv
        for seed in v.seeds:
            folders.add(v.folder(learning.RUNS, seed))
    assert len(folders) == sum(len(v.seeds) for v in learning.VARIANTS)


def test_the_page_from_an_empty_folder_marks_every_run_not_run(tmp_path):
    text = learning.page(tmp_path, "reading")
    for v in learning.VARIANTS:
        for seed in v.seeds:
            assert f"| `{v.key}-s{seed}` | not run |" in text
    assert text.count("| not run |") >= sum(len(v.seeds) for v in learning.VARIANTS)
    assert "## Reading" in text and text.rstrip().endswith("reading")
