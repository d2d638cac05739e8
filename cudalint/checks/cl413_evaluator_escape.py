"""CL413 evaluator-escape: a solution that inspects the evaluator or runs code outside the model.

Reported on the call, anywhere in a KernelBench-style solution (module level runs when the harness
imports it): stack and frame introspection (`inspect.stack`, `sys._getframe`), the collector's object
lists (`gc.get_objects`), writes into other modules' namespaces (`sys.modules[...]`, a frame's
`f_globals`, a module's `__dict__`), `exec`/`eval`/`compile` of a string that is not a literal,
`__import__`/`importlib.import_module` of a computed name, processes and shells (`subprocess.*`,
`os.system`, `os.popen`, `os.exec*`, `os.spawn*`, `pty.spawn`) and runtime package installs (`pip.main`).
Names are resolved through imports and aliases (`f = sys._getframe`).

With the dry run's facts, also reported: the reference model's forward called from the solution's code
while forward ran (found however the solution reached the reference's class: its namespace, `sys.modules`,
`globals()`), on the line that called it. The fact is observed, so it needs no name to resolve; without a
line in the solution's file it is not reported. Also from the dry run: a solution that reads the
environment (`os.environ[...]`, `.get`, `in`, `os.getenv`, iterating its names) whose forward launched a
custom kernel in every call, and launched none when the dry run imported and built it again in an
environment where every variable it looks for is set, reported on its first read. Reading the
environment alone is no proof (a build flag, a cache directory): only the kernel path changing with it.
Since the dry run's own calls ran where the variables are unset (as the harness grades) and launched the
kernel, the claim is an error only when the read probes the evaluator (iterating the names, a name of a
grading run: `probes_the_evaluator`); a switch of the author's (`FORCE_TORCH`) is a warning. A grading
environment that takes the path without the kernel is CL402's and CL403's, from the same calls.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from collections.abc import Iterator

from cudalint import pyast
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding, Severity
from cudalint.harness.document_state import state_of
from cudalint.harness.statements import line_location, node_location

_INTROSPECTION = {
    "inspect.stack", "inspect.currentframe", "inspect.getouterframes", "inspect.getinnerframes", "inspect.trace",
    "inspect.getmembers", "sys._getframe", "sys._current_frames", "sys.settrace", "sys.setprofile",
    "gc.get_objects", "gc.get_referrers", "gc.get_referents", "traceback.extract_stack", "traceback.walk_stack",
}
_PROCESS_PREFIXES = ("subprocess.", "os.exec", "os.spawn", "os.posix_spawn", "pty.spawn", "pip.", "pip._internal.")
_PROCESS = {"os.system", "os.popen", "os.startfile", "commands.getoutput"}
_DYNAMIC_CODE = {"exec", "eval", "compile", "builtins.exec", "builtins.eval", "builtins.compile"}
_DYNAMIC_IMPORT = {"__import__", "builtins.__import__", "importlib.import_module", "importlib.__import__"}
_FOREIGN_NAMESPACES = ("sys.modules", )


@rule("CL413", "evaluator-escape", "error",
      "the solution inspects the evaluator (stack frames, gc objects), writes into other modules, runs "
      "built or decoded code, imports computed names, or starts shells, processes or package installs",
      scope="document")
def check(ctx: RuleContext) -> Iterator[Finding]:
    solution = state_of(ctx.document).solution
    if solution is None or not solution.is_kernelbench:
        return
    imports = solution.imports
    for node in pyast.of_type(solution.module, ast.Call, ast.Assign, ast.AugAssign, ast.Delete):
        message = _call_escape(node, imports) if isinstance(node, ast.Call) else _foreign_write(node, imports)
        if message:
            yield ctx.finding_at(node_location(ctx.document, node), message)
    observed = ctx.observed
    for event in observed.events("reference-call") if observed is not None else []:
        if event["line"] is not None:
            yield ctx.finding_at(line_location(ctx.document, event["line"]), (
                f"the reference's `{event['what']}` ran from this line when the dry run called forward "
                f"({event['stage']}): the result graded is the reference's own computation, not the kernel's"))
    probed = observed.environment_dependence() if observed is not None else None
    if probed is not None:
        yield _environment_finding(ctx, probed)


# words that name an evaluator, a benchmark or a grading run in an environment variable's name
_EVALUATOR_WORDS = ("EVAL", "BENCH", "GRADE", "GRADING", "GRADER", "JUDGE", "HARNESS", "SCORE", "SCORING", "REWARD",
                    "LEADERBOARD", "VERIF", "PYTEST", "PROFIL", "TIMING", "TIMER")


def probes_the_evaluator(name: str) -> bool:
    """Whether reading this environment variable looks for the evaluator: iterating the names (`*`: the
    solution looks for a name it does not know in advance) or a name with a word of a grading run in it
    (`KERNELBENCH_EVAL`, `GRADER_ID`, `BENCHMARK_MODE`)."""
    words = re.split(r"[^A-Z]+", name.upper())
    return name == "*" or any(w.startswith(_EVALUATOR_WORDS) or w.endswith(("BENCH", "EVAL")) for w in words if w)


def _environment_finding(ctx: RuleContext, probed: dict) -> Finding:
    """The kernel path changes with the environment. The dry run's own calls ran where the variables are
    unset, as the harness grades, and launched the kernel every time (`environment_dependence`): an error
    only when the read probes the evaluator; a switch of the author's (`FORCE_TORCH=1`) is a warning."""
    read = probed["read"]
    what = "iterates the environment's names" if read["what"] == "*" else f"reads `{read['what']}` from the environment"
    location = line_location(ctx.document, read["line"])
    if probes_the_evaluator(read["what"]):
        return ctx.finding_at(location, (
            f"the solution {what} here, and its kernel path depends on it: the dry run's forward launched the "
            f"custom kernel in each of its {probed['calls']} calls, but built again where every variable it looks "
            f"for is set, forward launched none: on an evaluator whose environment matches, the harness checks "
            f"and times PyTorch"))
    return dataclasses.replace(ctx.finding_at(location, (
        f"the solution {what} here and takes a path without the custom kernel when it is set (the dry run "
        f"built it again with the variable set: forward launched none); graded where it is unset, forward "
        f"launched the kernel in each of the {probed['calls']} calls, so this is a warning, not a rejection: "
        f"make sure no evaluator sets it")), severity=Severity.WARNING)


def _call_escape(call: ast.Call, imports) -> str | None:
    qualified = imports.qualify(call.func) or ""
    shown = ast.unparse(call.func)
    if qualified in _INTROSPECTION:
        return (f"`{shown}` inspects the running evaluator (its frames or objects): a solution that reads or "
                f"changes the harness's state can fake the result it is graded on")
    if qualified in _PROCESS or qualified.startswith(_PROCESS_PREFIXES):
        return (f"`{shown}` runs a process or shell (or installs packages) from the solution: what it does is "
                f"outside the model the harness checks and times")
    first = call.args[0] if call.args else None
    if qualified in _DYNAMIC_CODE and first is not None and not _literal(first):
        return (f"`{shown}` runs code built at run time: what it executes cannot be checked before it runs "
                f"on the evaluator")
    if qualified in _DYNAMIC_IMPORT and first is not None and not _literal(first):
        return f"`{shown}` imports a computed name: which module the solution loads is hidden from review"
    if qualified in ("setattr", "delattr", "builtins.setattr") and call.args and _foreign(call.args[0], imports):
        return (f"`{ast.unparse(call)[:60]}` writes into another module's namespace: the harness's own "
                f"functions and values can be replaced that way")
    return None


def _foreign_write(statement: ast.stmt, imports) -> str | None:
    targets = statement.targets if isinstance(statement, (ast.Assign, ast.Delete)) else [statement.target]
    for target in targets:
        if isinstance(target, (ast.Attribute, ast.Subscript)) and _foreign(target.value, imports):
            return (f"`{ast.unparse(target)[:60]}` is written in another module's namespace: the harness's own "
                    f"functions and values can be replaced that way")
    return None


def _foreign(expr: ast.expr, imports) -> bool:
    """A namespace that belongs to other modules: `sys.modules[...]`, a frame's `f_globals`/`f_locals`,
    a module's `__dict__`, `vars(module)`, `builtins`."""
    for sub in pyast.walk(expr):
        if isinstance(sub, ast.Attribute) and sub.attr in ("f_globals", "f_locals", "f_builtins", "__dict__") \
                and not (isinstance(sub.value, ast.Name) and sub.value.id == "self"):
            return True
        if isinstance(sub, (ast.Attribute, ast.Name)) and (imports.qualify(sub) or "") in _FOREIGN_NAMESPACES + (
                "builtins", "__main__", "__builtins__"):
            return True
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id == "vars" and sub.args:
            return True
    return False


def _literal(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and isinstance(expr.value, (str, bytes))
