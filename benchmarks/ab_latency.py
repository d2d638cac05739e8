"""Compare the lint latency of two checkouts back to back: each corpus file is linted in turn by two
worker processes, one per checkout, so both see the same machine (its speed drifts 10-20% an hour).

    python benchmarks/ab_latency.py OLD_CHECKOUT NEW_CHECKOUT [--repeat 3]

Prints each checkout's median and mean over files (of per-file medians) and the median per-file ratio.
Both checkouts need their compiled parts built (`pip install -e .` or `python setup.py build_ext -i`).
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import sys
import time


def serve(root: str, connection) -> None:
    sys.path.insert(0, root)
    from cudalint import lint_source
    from cudalint.engine import tune_garbage_collector
    from cudalint.evaluation.corpus import load_corpus

    cases = load_corpus(root + "/corpus")
    tune_garbage_collector()
    for case in cases:  # warm up: stub headers, preludes, the translation-unit pool
        lint_source(case.text, filename=case.path)
    connection.send([case.path for case in cases])
    while (index := connection.recv()) is not None:
        start = time.perf_counter()
        lint_source(cases[index].text, filename=cases[index].path)
        connection.send((time.perf_counter() - start) * 1000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkouts", nargs=2)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    multiprocessing.set_start_method("spawn")
    connections = []
    for root in args.checkouts:
        mine, theirs = multiprocessing.Pipe()
        multiprocessing.Process(target=serve, args=(root, theirs), daemon=True).start()
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
