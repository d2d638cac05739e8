"""Compare the lint latency of two checkouts back to back: each corpus file is linted in turn by two
worker processes, one per checkout, so both see the same machine (its speed drifts 10-20% an hour).

    python benchmarks/ab_latency.py OLD_CHECKOUT NEW_CHECKOUT [--repeat 3] [--realkernels 60] [--cpu]

Prints each checkout's median and mean over files (of per-file medians) and the median per-file ratio.
Both checkouts need their compiled parts built (`pip install -e .` or `python setup.py build_ext -i`).
`--realkernels N`: instead of the corpus, N real generated kernels (those of `benchmarks/lint_cpu_ab.py`),
each linted with its reference problem and without the dry run (`lint_file`, where the engine takes the
reference from the options: the harness rules judge it as `cudalint check --reference` does). `--cpu`: the
process's CPU time (every thread) instead of the wall clock, for a machine others share.
"""

from __future__ import annotations

import argparse
import functools
import multiprocessing
import statistics
import sys
import time


def serve(root: str, connection, realkernels: int, cpu: bool) -> None:
    sys.path.insert(0, root)
    from cudalint import lint_source
    from cudalint.engine import tune_garbage_collector

    clock = time.process_time if cpu else time.perf_counter
    if realkernels:
        from cudalint.config import LintOptions
        from cudalint.engine import lint_file
        from lint_cpu_ab import REALKERNELS, pick

        def options(reference: str) -> LintOptions:
            chosen = LintOptions(reference=reference)
            if hasattr(chosen, "dry_run"):  # releases before the dry run have none
                chosen.dry_run = False
            return chosen.validate()

        cases = [(path, functools.partial(lint_file, path, options(reference)))
                 for path, reference in pick(REALKERNELS, realkernels)]
    else:
        from cudalint.evaluation.corpus import load_corpus

        cases = [(case.path, functools.partial(lint_source, case.text, filename=case.path))
                 for case in load_corpus(root + "/corpus")]
    tune_garbage_collector()
    for _, lint in cases:  # warm up: stub headers, preludes, the translation-unit pool
        lint()
    connection.send([path for path, _ in cases])
    while (index := connection.recv()) is not None:
        start = clock()
        cases[index][1]()
        connection.send((clock() - start) * 1000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkouts", nargs=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--realkernels", type=int, default=0, metavar="N")
    parser.add_argument("--cpu", action="store_true")
    args = parser.parse_args()
    multiprocessing.set_start_method("spawn")
    connections = []
    for root in args.checkouts:
        mine, theirs = multiprocessing.Pipe()
        multiprocessing.Process(target=serve, args=(root, theirs, args.realkernels, args.cpu), daemon=True).start()
        connections.append(mine)
    paths = [connection.recv() for connection in connections][0]
    times = [[[] for _ in paths] for _ in connections]
    for index in range(len(paths)):
        for _ in range(args.repeat):
            for which, connection in enumerate(connections):
                connection.send(index)
                times[which][index].append(connection.recv())
    for connection in connections:
        connection.send(None)
    medians = [[statistics.median(t) for t in per_file] for per_file in times]
    for root, values in zip(args.checkouts, medians):
        print(f"{root}: median {statistics.median(values):.2f} ms, mean {statistics.mean(values):.2f} ms per file")
    ratios = [a / b for a, b in zip(medians[0], medians[1])]
    print(f"median per-file ratio first/second: {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
