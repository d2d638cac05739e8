"""The verify worker's output poisoning (`Poisoner`).

Before each candidate forward the worker empties the caching allocator's cache, then allocates the
output-sized blocks (and a large and a few small blocks) the candidate's `torch::empty` is going to receive,
fills them with 0xFF bytes (NaN in float32/float16/bfloat16, -1 in integers) and frees them again: the
allocator keeps them and hands the same memory to the candidate. An element the kernel never writes then
reads back as NaN with the all-ones bit pattern, reported as unwritten (`comparison.compare`). This is best
effort: it covers memory from PyTorch's caching allocator (torch::empty and friends), not cudaMalloc called
directly by the candidate.

Part of the worker (`worker.py`, run as a script): standard library only at the top, torch passed in.
"""

from __future__ import annotations


POISON_BYTE = 0xFF
SMALL_POOL_BLOCK = 512 * 1024  # allocations up to 1 MiB come from the allocator's 2 MiB small segments


class Poisoner:
    """Fills the memory the caching allocator is about to hand out with 0xFF bytes (see the module doc):
    every block the allocator holds free (found in its memory snapshot, smallest first, so that best-fit
    hands out exactly that block), plus fresh blocks of each output's size, are allocated, filled and
    freed again. The allocator then serves the candidate's allocations from poisoned memory."""

    def __init__(self, torch, device) -> None:
        self.torch = torch
        self.device = device
        self.covered_bytes = 0  # how much memory the last call poisoned

    def __call__(self, output_bytes: list[int]) -> None:
        torch = self.torch
        torch.cuda.synchronize(self.device)
        torch.cuda.empty_cache()
        held: list = []
        self.covered_bytes = 0
        try:
            self._soak(held)
        except Exception:  # noqa: BLE001 - the snapshot API differs between versions: fresh blocks only then
            pass
        for size in list(output_bytes) * 2:
            if size > 0:
                held.append(self._filled(size))
        held.append(self._filled(max([64 * 1024 * 1024] + [4 * s for s in output_bytes])))
        held += [self._filled(SMALL_POOL_BLOCK) for _ in range(4)]
        torch.cuda.synchronize(self.device)
        del held  # back to the allocator's cache, still holding the poison

    def _filled(self, size: int):
        self.covered_bytes += size
        return self.torch.empty(size, dtype=self.torch.uint8, device=self.device).fill_(POISON_BYTE)

    def _soak(self, held: list, limit: int = 2048) -> None:
        """Take every free block of the current stream's pools, smallest first."""
        torch = self.torch
        index = self.device.index if self.device.index is not None else torch.cuda.current_device()
        stream = torch.cuda.current_stream(self.device).cuda_stream
        skipped: set[int] = set()
        for _ in range(limit):
            free = []
            for segment in torch.cuda.memory_snapshot():
                if segment.get("device") != index or segment.get("stream", stream) != stream:
                    continue
                for block in segment.get("blocks", []):
                    if block.get("state") == "inactive" and block["address"] not in skipped:
                        free.append((block["size"], block["address"], segment.get("segment_type")))
            if not free:
                return
            size, address, kind = min(free)
            request = min(size, 1024 * 1024) if kind == "small" else size
            reserved = torch.cuda.memory_reserved(self.device)
            held.append(self._filled(request))
            if torch.cuda.memory_reserved(self.device) > reserved:
                skipped.add(address)  # served from a new segment: this free block cannot be had; move on
