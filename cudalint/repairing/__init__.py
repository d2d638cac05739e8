"""Repair: prompts from findings, an OpenAI-compatible client, code extraction and the re-lint loop.

The prompt text lives in the jinja2 templates of the top-level `repair/` folder (the package
`cudalint.prompt_templates`); this package is named `repairing` so that it does not shadow it.
"""

# here rather than in `client`, whose HTTP modules the command line would otherwise import on every start
DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"
