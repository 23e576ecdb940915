"""``dolma-sql dedupe``: dolma's deduper (same configs and dotted flags), deterministic, plus ``--exact``.

    dolma-sql -c dedupe.yaml dedupe
    dolma-sql dedupe --documents 'wiki/documents/*.gz' --dedupe.paragraphs.attribute_name bff_duplicate_paragraph_spans \\
        --dedupe.skip_empty --bloom_filter.file f.bin --no-bloom_filter.read_only \\
        --bloom_filter.estimated_doc_count 6_000_000 --bloom_filter.desired_false_positive_rate 0.0001 --processes 4
    dolma-sql -c dedupe.yaml dedupe --exact --report report.json
"""

from __future__ import annotations

import json

import typer

from dolma_sql.commands import DOLMA_FLAGS, command_config


def register(app: typer.Typer) -> None:
    @app.command("dedupe", context_settings=DOLMA_FLAGS)
    def dedupe_command(
        ctx: typer.Context,
        exact: bool = typer.Option(False, "--exact", help="Exact dedup with DuckDB (no false positives) and a lineage table; same as --dedupe.mode exact."),
        report: str = typer.Option(None, "--report", help="Also write the run's statistics as JSON to this file."),
    ) -> None:
        """Mark duplicate documents or paragraphs as attributes (dolma's dedupe options, as dotted flags)."""
        from dolma_sql import dedupe
        from dolma_sql.storage import output

        config = command_config(ctx, dedupe.DeduperConfig)
        if exact and config.dedupe is not None:
            config.dedupe.mode = "exact"
        if config.dryrun:  # validate everything, list what would be written, touch nothing
            dedupe.resolve_settings(config, config.processes)
            for job in dedupe.plan_files(config):
                typer.echo(f"{job.path} -> {job.attributes}")
            return
        result = dedupe.run(config)
        dedupe.print_report(result)
        target = report or config.report
        if target:
            with output(target) as writer:
                writer.write(json.dumps(result.as_dict(), indent=1).encode() + b"\n")
