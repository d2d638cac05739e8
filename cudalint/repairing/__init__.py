"""Repair: prompts from findings, an OpenAI-compatible client, code extraction and the re-lint loop.

The prompt text lives in the jinja2 templates of the top-level `repair/` folder (the package
`cudalint.prompt_templates`); this package is named `repairing` so that it does not shadow it.
"""
