"""The README's recipes (issue 15): the local-PostgreSQL one runs the demo with DEBUG on
(it refuses DEBUG=0), and the ScholarQA-CS2 import block names files that exist, the
system names the annotation files use and the judge of their model_* scores."""

import json
import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DATA = ROOT.parent / "shared" / "data" / "scholarqa-cs2"


def block_after(marker: str) -> str:
    start = README.index(marker)
    return README[start:].split("```sh", 1)[1].split("```", 1)[0]


def test_local_postgres_recipe_migrates_then_runs_the_demo_with_debug_on():
    recipe = block_after("**Try it locally**")
    lines = [line.strip() for line in recipe.splitlines()]
    demo = next(i for i, line in enumerate(lines) if "manage.py demo" in line)
    migrate = next(i for i, line in enumerate(lines) if "manage.py migrate" in line)
    assert migrate < demo
    assert lines[demo].startswith("DEBUG=1 "), lines[demo]


@pytest.mark.shared_data
def test_scholarqa_block_names_existing_files_and_the_released_names():
    if not DATA.exists():
        pytest.skip("../shared/data/scholarqa-cs2 is not here")
    block = block_after("**The released ScholarQA-CS2 data**").replace("\\\n", " ")
    # expand the two loops by hand: the block's own variables and values
    files, systems, judges = [], [], set()
    for s in ("sqa", "openai-dr", "perplexity", "storm"):
        files.append(f"reports/expert_written/{s}.json")
        systems.append(s)
    assert "for s in sqa openai-dr perplexity storm; do" in block
    for words in (shlex.split(line) for line in block.splitlines() if "manage.py" not in line):
        if "--judge" in words:
            judges.add(words[words.index("--judge") + 1])
    for line in block.splitlines():
        for path in re.findall(r'"\$DATA/([^"]+)"', line):
            for split in ("dev", "test"):
                for n in ("1", "2"):
                    files.append(path.replace("${split}", split).replace("$n", n))
        if "--system qwen-sqa" in line or "--system qwen-sqa" in block:
            systems.append("qwen-sqa")
    files = {f for f in files if "$" not in f}
    for f in files:
        assert (DATA / f).exists(), f
    assert judges == {"gemini-2.5-flash"}
    annotated = set()
    for name in ("pairwise_authored.json", "pairwise_chosen.json"):
        annotated |= {m for r in json.loads((DATA / "annotation" / name).read_text())
                      for m in r["models"]}  # fmt: skip
    assert set(systems) <= annotated, set(systems) - annotated
    assert "sqa-qwen3_8b_SFT_fullanswer.jsonl" in block and "--system qwen-sqa" in block


@pytest.mark.shared_data
@pytest.mark.django_db
def test_deepscholar_block_imports_the_release_as_written():
    from django.core.management import call_command

    from annotation.models import Exemplar, Nugget, Report

    ds = ROOT.parent / "shared" / "data" / "deepscholar"
    if not ds.exists():
        pytest.skip("../shared/data/deepscholar is not here")
    block = block_after("**The released DeepScholar-Bench data**")
    for line in block.splitlines():
        if not line.startswith("$M "):
            continue
        args = shlex.split(line.replace("$DS", str(ds)).split("#")[0])[1:]
        call_command(*args)
    assert Report.objects.filter(question__study__name="DeepScholar").count() == 8
    assert Nugget.objects.filter(question__study__name="DeepScholar").count() > 600
    assert Exemplar.objects.filter(question__study__name="DeepScholar").count() == 63
    assert set(Report.objects.values_list("question__external_id", flat=True)) == {
        "2506.02838v1",
        "2506.02634v1",
    }
