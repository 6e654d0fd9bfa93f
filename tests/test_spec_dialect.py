"""Every dataset is declared in one dialect: a keyword ``DatasetSpec(...)`` (directly, or
through a partial or keyword-only factory whose parameters are DatasetSpec fields)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import stebkit
from stebkit.datasets import catalogue, get_spec
from stebkit.datasets.spec import DatasetSpec
from stebkit.tasks import FAMILIES

PACKAGE = Path(stebkit.__file__).parent
DATASET_MODULES = ("datasets/catalogue.py", "datasets/lite.py", "datasets/probing_sets.py",
                   "datasets/synthetic.py")
SPEC_FIELDS = set(DatasetSpec.__dataclass_fields__)


def _tree(module: str) -> ast.Module:
    return ast.parse((PACKAGE / module).read_text(encoding="utf-8"))


def _name(node: ast.expr) -> str | None:
    return node.id if isinstance(node, ast.Name) else None


def _builders(tree: ast.Module) -> tuple[set[str], list[ast.FunctionDef]]:
    """Names that build a DatasetSpec: the class, partials of a builder, and functions
    that return a builder's call (the factories, returned with their definitions)."""
    builders, factories = {"DatasetSpec"}, []
    changed = True
    while changed:
        changed = False
        for node in ast.walk(tree):
            if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                    and _name(node.value.func) == "partial" and node.value.args
                    and _name(node.value.args[0]) in builders):
                for target in node.targets:
                    if _name(target) and target.id not in builders:
                        builders.add(target.id)
                        changed = True
            if isinstance(node, ast.FunctionDef) and node.name not in builders and any(
                    isinstance(ret, ast.Return) and isinstance(ret.value, ast.Call)
                    and _name(ret.value.func) in builders for ret in ast.walk(node)):
                builders.add(node.name)
                factories.append(node)
                changed = True
    return builders, factories


def _builder_calls(tree: ast.Module, builders: set[str]) -> list[ast.Call]:
    return [node for node in ast.walk(tree) if isinstance(node, ast.Call)
            and _name(node.func) in builders]


@pytest.mark.parametrize("module", [*DATASET_MODULES, "suites/loading.py"])
def test_every_spec_is_built_with_keywords_only(module):
    tree = _tree(module)
    builders, factories = _builders(tree)
    if module == "suites/loading.py":  # the suite reader turns a file's entry into a spec
        builders, factories = {"DatasetSpec"}, []
    calls = _builder_calls(tree, builders)
    assert calls, f"{module}: no DatasetSpec declaration found"
    forwarded = {func.args.kwarg.arg for func in factories if func.args.kwarg}
    for call in calls:
        where = f"{module}:{call.lineno}"
        assert not call.args, f"{where}: positional arguments to {call.func.id}"
        names = [kw.arg for kw in call.keywords if kw.arg is not None]
        # ** only where a factory passes on the fields it was given
        assert all(_name(kw.value) in forwarded for kw in call.keywords if kw.arg is None), \
            f"{where}: ** arguments to {call.func.id}"
        assert set(names) <= SPEC_FIELDS, f"{where}: {set(names) - SPEC_FIELDS}"
        for kw in call.keywords:
            if kw.arg in ("tasks", "license"):  # families and licences by name, not codes
                assert not isinstance(kw.value, ast.Constant), f"{where}: {kw.arg} code"


def test_factories_take_spec_fields_by_keyword():
    factories = [(module, func) for module in DATASET_MODULES
                 for func in _builders(_tree(module))[1]]
    assert factories, f"no DatasetSpec factory found in {DATASET_MODULES}"
    for module, func in factories:
        args = func.args
        assert not args.posonlyargs and not args.args and args.vararg is None, \
            f"{module}: {func.name} takes positional parameters"
        assert {a.arg for a in args.kwonlyargs} <= SPEC_FIELDS, func.name


@pytest.mark.parametrize("module", DATASET_MODULES)
def test_no_code_tables_and_task_configs_by_keyword(module):
    tree = _tree(module)
    bound = {t.id for node in ast.walk(tree) if isinstance(node, ast.Assign)
             for t in node.targets if isinstance(t, ast.Name)}
    defined = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
    assert not ({"_TASK_CODES", "_CAT_APP", "_LIC"} & bound)
    assert "_spec" not in defined
    configs = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
               and _name(node.func) == "TaskConfig"]
    assert configs and all(not c.args for c in configs), module


def test_preset_is_every_family_preset():
    for family in ("clustering", "all_to_all_pairs", "predefined_pairs", "retrieval",
                   "order_alignment", "probing"):
        assert FAMILIES[family].config(catalogue.PRESET) == FAMILIES[family].config()


# Hand-checked against the reference's steb/steb_datasets/<name>/config.json: its task
# names (pair_classification = all-to-all pairs, pre_defined_pair_classification =
# predefined pairs) and n_episodes_per_class where the config sets one.
@pytest.mark.parametrize(("name", "category", "application", "episodes"), [
    ("fce_l1", "demographics", "authorship_attribution",
     {"clustering": 100, "all_to_all_pairs": 100}),
    ("corpus_of_diverse_styles", "register", "style_transfer_evaluation",
     {"clustering": None, "all_to_all_pairs": None, "order_alignment": None}),
    ("pan13_authorship_verification_english_test", "idiolect", "authorship_verification",
     {"predefined_pairs": None}),
    ("amazon", "idiolect", "authorship_retrieval", {"retrieval": None}),
    ("stel_register", "register", "style_transfer_evaluation", {"order_alignment": None}),
])
def test_rows_match_the_reference_configuration(name, category, application, episodes):
    spec = get_spec(name)
    assert (spec.category, spec.application) == (category, application)
    assert list(spec.tasks) == list(episodes)
    for task, per_label in episodes.items():
        resolved = FAMILIES[task].config(spec.tasks[task])
        preset = FAMILIES[task].config()
        assert resolved.episode_sizes == preset.episode_sizes
        assert resolved.episodes_per_label == (per_label or preset.episodes_per_label)


def test_pan_parts_keep_their_language():
    assert get_spec("pan13_authorship_verification_greek_test").languages == ("el",)
    assert get_spec("pan14_authorship_verification_corpus2_dutch_reviews_test"
                    ).languages == ("nl",)
    assert get_spec("pan15_authorship_verification_spanish_test").languages == ("es",)
