"""Records' accounting and messages: an extension built in the run (`__init__`, the first forward) is build
time; messages are capped, with printed tensors summarised (pybind's "Invoked with: tensor([[[[..." is
never copied whole). CPU stand-in worker."""

from __future__ import annotations

from pathlib import Path

from test_verify import RELU_REF, _options, _solution

from cudalint.verify import results
from cudalint.verify.diagnostics import MESSAGE_LIMIT, short_message
from cudalint.verify.runner import Candidate, verify_batch


def test_printed_tensors_are_summarised_and_messages_capped() -> None:
    text = ("Invoked with: tensor([[[0.1, 0.2], [0.3, 0.4]]], device='cuda:0', dtype=torch.float16), 3, "
            "tensor(2.5000), tensor([], size=(0, 4))")
    assert short_message(text) == ("Invoked with: tensor<3-d, dtype=torch.float16, device='cuda:0'>, 3, "
                                   "tensor<scalar>, tensor<1-d, size=(0, 4)>")
    assert len(short_message("x" * 5000)) == MESSAGE_LIMIT and short_message("x" * 5000).endswith("...")
    assert short_message("an unclosed tensor([1, 2") == "an unclosed tensor([1, 2"


def test_pybinds_invoked_with_is_not_copied_whole(tmp_path: Path) -> None:
    [record] = verify_batch([Candidate(_solution(tmp_path, "p.py", "pybind"), str(RELU_REF))], _options(tmp_path))
    assert record["status"] == "runtime_error" and len(record["message"]) <= MESSAGE_LIMIT
    assert "Invoked with: tensor<4-d, device='cuda:0'>, tensor<4-d, device='cuda:0'>" in record["message"]
    assert "0.1234" not in results.render_table([record]) + "\n".join(results.messages(record))


def test_an_extension_built_in_the_run_is_build_time(tmp_path: Path) -> None:
    ok, built = verify_batch([Candidate(_solution(tmp_path, "a.py", "ok"), str(RELU_REF)),
                              Candidate(_solution(tmp_path, "b.py", "initbuild"), str(RELU_REF))], _options(tmp_path))
    assert built["status"] == "correct" and built["build"]["seconds_in_run"] == 1.5
    assert built["seconds"]["build"] >= ok["seconds"]["build"] + 1.5 - 0.2
    assert "seconds_in_run" in ok["build"] and ok["build"]["seconds_in_run"] == 0.0
