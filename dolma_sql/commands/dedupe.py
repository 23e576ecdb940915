"""``dolma-sql dedupe``: dolma's deduper (same configs and dotted flags), deterministic, plus ``--exact``.

    dolma-sql -c dedupe.yaml dedupe
    dolma-sql dedupe --documents 'wiki/documents/*.gz' --dedupe.paragraphs.attribute_name bff_duplicate_paragraph_spans \\
        --dedupe.skip_empty --bloom_filter.file f.bin --no-bloom_filter.read_only \\
        --bloom_filter.estimated_doc_count 6_000_000 --bloom_filter.desired_false_positive_rate 0.0001 --processes 4
    dolma-sql -c dedupe.yaml dedupe --exact --report report.json --executor serial
    dolma-sql -c dedupe.yaml dedupe --dedupe.num_partitions 4 --dedupe.all_partitions --executor ray
    dolma-sql dedupe --documents 'c/documents/*.gz' --dedupe.minhash.attribute_name near_dup --processes 4
"""

from __future__ import annotations

import contextlib

import typer

from dolma_sql.commands import DOLMA_FLAGS, command_config
from dolma_sql.help import config_command
from dolma_sql.runtime.executors import executor_of


def register(app: typer.Typer) -> None:
    @app.command("dedupe", cls=config_command("dolma_sql.config.dedupe:DeduperConfig"), context_settings=DOLMA_FLAGS)
    def dedupe_command(
        ctx: typer.Context,
        exact: bool = typer.Option(False, "--exact", help="Exact dedup with DuckDB (no false positives) and a lineage table; same as --dedupe.mode exact."),
    ) -> None:
        """Mark duplicate documents or paragraphs as attributes (dolma's dedupe options, as dotted flags)."""
        from dolma_sql import deduper
        from dolma_sql.config.dedupe import DeduperConfig
        from dolma_sql.deduper.extract import extract_file
        from dolma_sql.deduper.partitions import partition_configs

        if exact:
            ctx.args[:] = [*ctx.args, "--dedupe.mode", "exact"]
        config = command_config(ctx, DeduperConfig)
        if config.dryrun:  # validated; list what would be written, touch nothing
            for part in partition_configs(config):
                for job in deduper.plan_files(part):
                    typer.echo(f"{job.path} -> {job.attributes}")
            return
        executor = executor_of(config)
        minhash = config.dedupe.mode == "minhash"
        executor.prepare("dolma_sql.deduper.minhash_run" if minhash else extract_file.__module__)
        parallel_steps = minhash or len(partition_configs(config)) > 1 or (config.dedupe.mode == "exact" and config.dedupe.exact_partitions > 1)
        # otherwise not entered: its workers stop after extraction, before the filter or the one aggregation
        with executor if parallel_steps else contextlib.nullcontext():
            result = deduper.run(config, executor=executor)
        deduper.print_report(result)
