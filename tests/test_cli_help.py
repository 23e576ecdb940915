"""``--help`` lists every option a command accepts, generated from its config struct (issue 18 item 1)."""

from __future__ import annotations

import re

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from dolma_sql.cli import app
from dolma_sql.config.loading import describe_options
from dolma_sql.help import resolve

COMMANDS = get_command(app).commands
CONFIGURED = sorted(name for name, command in COMMANDS.items() if hasattr(command, "config_schema"))


def help_text(args: list[str], columns: int) -> str:
    result = CliRunner().invoke(app, args, env={"COLUMNS": str(columns)}, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def flattened(text: str) -> str:
    """The help without its panels' borders and line breaks: wrapped descriptions read as one line."""
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", text).split())


def test_every_command_that_takes_dolmas_flags_has_a_config_schema():
    takes_flags = sorted(name for name, command in COMMANDS.items() if command.context_settings.get("allow_extra_args"))
    assert takes_flags == CONFIGURED == ["dedupe", "list", "mix", "stat", "tag", "tokens", "warc"]


@pytest.mark.parametrize("command", CONFIGURED)
def test_every_config_field_has_a_description(command):
    undocumented = [option.name for option in describe_options(resolve(COMMANDS[command].config_schema)) if not option.description]
    assert not undocumented, f"write a docstring under each of these fields of the {command} config: {undocumented}"


@pytest.mark.parametrize("columns", [80, 200])
@pytest.mark.parametrize("command", CONFIGURED)
def test_help_lists_every_config_field_with_its_type_default_and_description(command, columns):
    text = flattened(help_text([command, "--help"], columns))
    options = describe_options(resolve(COMMANDS[command].config_schema))
    assert options
    for option in options:
        name = ("--" if option.flag else "") + option.name
        assert f"{name} {option.type} {option.description}" in text, f"{name} is missing from `{command} --help`"
        if option.required:
            assert f"{name} {option.type} {option.description} [required]" in text
        elif option.default not in (None, "[]"):
            assert f"{name} {option.type} {option.description} [default: {option.default}]" in text


def test_nested_and_dolma_flags_are_listed():
    dedupe = flattened(help_text(["dedupe", "-h"], 100))
    for name in ("--dedupe.paragraphs.attribute_name", "--dedupe.paragraphs.by_ngram.ngram_length", "--bloom_filter.read_only", "--bloom_filter.file", "--processes", "--work_dir.output"):
        assert name in dedupe
    mix = flattened(help_text(["mix", "-h"], 100))
    assert "mix [RECIPE] [OPTIONS]" in mix and "streams[].span_replacement[].min_score" in mix and "streams[].output.path TEXT" in mix


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_h_is_help_for_every_command(command):
    assert "Usage:" in help_text([command, "-h"], 100)


def test_h_is_help_for_the_program():
    text = help_text(["-h"], 100)
    assert "Usage:" in text and all(command in text for command in COMMANDS)


def test_mix_without_a_recipe_says_how_to_call_it(tmp_path):
    from runtime_helpers import run_cli

    for args in (["mix"], ["mix", "--processes", "2"]):
        result = run_cli(args, cwd=tmp_path)
        assert result.returncode == 1
        assert "no recipe given" in result.stderr and "dolma-sql mix RECIPE (or dolma-sql -c RECIPE mix)" in result.stderr
        assert "no streams" not in result.stderr


def test_misspelled_names_get_the_nearest_ones(tmp_path):
    """A misspelled config key names the key it may mean; a misspelled flag also the command's own options."""
    from runtime_helpers import run_cli

    (tmp_path / "documents").mkdir()
    (tmp_path / "documents" / "a.jsonl").write_text('{"id":"a","text":"t"}\n')
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text("streams:\n- name: s\n  documents: [documents/*.jsonl]\n  output: {path: out, max_size_in_byte: 10}\n")
    key = run_cli(["mix", str(recipe)], cwd=tmp_path)
    assert key.returncode == 1 and "unknown field `max_size_in_byte`" in key.stderr and "did you mean max_size_in_bytes?" in key.stderr
    recipe.write_text("streams:\n- name: s\n  documents: [documents/*.jsonl]\n  output: {path: out}\n")
    flag = run_cli(["mix", str(recipe), "--dry_run"], cwd=tmp_path)
    assert flag.returncode == 1 and "--dry-run" in flag.stderr.split("hint:")[1], flag.stderr
    report = run_cli(["mix", str(recipe), "--report", "report.json"], cwd=tmp_path)
    assert report.returncode == 1 and "--report writes the impact report of --dry-run" in report.stderr
    assert not (tmp_path / "out").exists() and not (tmp_path / "report.json").exists()
