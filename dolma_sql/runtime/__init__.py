"""One runtime under every command: executors run picklable units, a ledger records the finished ones.

A command plans a list of units (small picklable descriptions: an input file, an output shard)
and a top-level function that processes one and returns its counters; :func:`run.run_units`
skips the units its :class:`ledger.Ledger` has, maps the function over the rest with the
:class:`executor.Executor` it was handed, records each finished unit and shows progress.
Commands never build an executor: the command line (or the caller of the Python API) does,
with :func:`executors.build_executor`.
"""

from dolma_sql.runtime.executor import Counters, Executor, SerialExecutor, add_count
from dolma_sql.runtime.ledger import Ledger
from dolma_sql.runtime.run import run_units

__all__ = ["Counters", "Executor", "Ledger", "SerialExecutor", "run_units"]
